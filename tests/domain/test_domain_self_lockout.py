"""labdeck's own rule on top of GitLab's (issue 13 item 11): ban, block, deactivate and reject are never
offered on the signed-in account, whatever its state, with the reason; the others are unaffected."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.moderation import (
    SELF_LOCKOUT,
    SELF_LOCKOUT_REASON,
    Account,
    Operation,
    UserState,
    allowed_operations,
    check,
    self_lockout,
)

accounts = st.builds(Account, st.sampled_from(list(UserState)), internal=st.booleans(), dormant=st.booleans())


@given(accounts)
def test_lockout_operations_are_never_offered_on_oneself(account: Account) -> None:
    mine = {row.op: row for row in allowed_operations(account, caller_is_target=True)}
    others = {row.op: row for row in allowed_operations(account, caller_is_target=False)}
    for op in Operation:
        if op in SELF_LOCKOUT:
            assert not mine[op].enabled and mine[op].reason == SELF_LOCKOUT_REASON
        elif op is not Operation.BLOCK:
            assert mine[op] == others[op]


def test_ban_and_deactivate_would_be_allowed_by_gitlab() -> None:
    """Why the rule exists: GitLab itself accepts banning or deactivating your own account."""
    me = Account(UserState.ACTIVE, dormant=True)
    assert check("ban", me, caller_is_target=True).status == 201
    assert check("deactivate", me, caller_is_target=True).status == 201
    assert self_lockout("ban", caller_is_target=True) == SELF_LOCKOUT_REASON
    assert self_lockout("ban", caller_is_target=False) is None
    assert self_lockout("unban", caller_is_target=True) is None
    assert SELF_LOCKOUT == {Operation.BAN, Operation.BLOCK, Operation.DEACTIVATE, Operation.REJECT}
