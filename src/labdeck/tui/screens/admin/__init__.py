"""Instance administration screens: instance CI variables and Pages domains."""
