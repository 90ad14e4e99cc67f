

def test_status_line_says_the_status_once() -> None:
    from labdeck.domain.text import status_line

    assert status_line(404, "404 Project Not Found") == "404 Project Not Found"
    assert status_line(403, "403") == "403"
    assert status_line(400, "status is missing") == "400: status is missing"
    assert status_line(400, "4000 things") == "400: 4000 things"
    assert status_line(None, "reset") == "error: reset"
