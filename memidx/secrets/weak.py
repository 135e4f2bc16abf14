"""The commonest passwords people choose (pure): words no entropy measure calls random.

`!letmein` holds too little entropy for a value's rule (2.4 of the 2.5 it needs), and one
word negated given to a flag's name was read as code's negation of a variable so named:
`savePassword = !letmein` and `password = !letmein` were let through."""

from __future__ import annotations

# The letter-only entries of 7 letters or more of the yearly published lists of the
# commonest passwords (SplashData's, NordPass's), in small letters
COMMON_PASSWORDS = frozenset(
    {"letmein", "iloveyou", "sunshine", "princess", "football", "baseball", "welcome",
     "superman", "starwars", "whatever", "freedom", "qwertyuiop", "qwertyu", "qazwsxedc",
     "trustno", "michael", "jennifer", "charlie", "computer", "internet", "mustang",
     "samantha", "corvette", "mercedes", "asdfghjkl", "zxcvbnm", "abcdefg", "pokemon",
     "chocolate", "butterfly", "liverpool", "maverick", "chelsea", "jessica", "matthew",
     "anthony", "william", "passion", "dolphin", "blahblah"}
)  # fmt: skip
# Those a variable may be named after, as code names what a flag tests (`showPassword =
# !computer` was refused as a password); no variable is named `letmein` or `sunshine`
VARIABLE_WORDS = frozenset({"computer", "internet", "welcome", "whatever", "freedom", "passion"})
NO_NAMES = COMMON_PASSWORDS - VARIABLE_WORDS
SIGNS = "!#$%&*+,-./:;=?@^_|~"


def common_password(value: str) -> bool:
    """Whether `value` is one of COMMON_PASSWORDS with a sign or digits before or after it
    (`!letmein`, `letmein!`, `iloveyou2`): alone, a word in small letters is judged as any."""
    word = value.strip(SIGNS + "0123456789")
    if value == "@" + word:  # a mention of a person, `token_owner: @jennifer`, was refused
        return False
    return word != value and word.lower() in COMMON_PASSWORDS
