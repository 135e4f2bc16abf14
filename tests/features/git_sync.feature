Feature: Git is the memory, and git keeps the index in step
  Notes and turns reach other machines by git. Nobody runs a memidx command by hand
  between git operations, and a commit never leaves the index apart from the repository.

  Background:
    Given two machines cloned from one remote with the memidx hooks installed

  Scenario: A note committed on one machine is found on the other after a pull
    When machine A commits the note "notes/wsl.md" saying "vmmem eats the RAM" and pushes
    And machine B pulls
    Then machine B finds "notes/wsl.md" when it searches for "vmmem"
    And the index of machine B is in step

  Scenario: A turn filed on one machine is found on the other once its log is pulled
    When machine A files the turn "decided the compression threshold is 0.8"
    And machine A commits its haystack and pushes
    And machine B pulls
    Then machine B finds a turn when it searches for "compression threshold"

  Scenario: A commit made without the hooks blocks the next commit until reconcile
    When machine A commits the note "notes/sneaky.md" saying "behind the back" without hooks
    Then committing another note on machine A fails with "the index has drifted from HEAD"
    When machine A runs "memidx reconcile --fix"
    Then committing another note on machine A succeeds

  Scenario: A note that is not in English is not committed
    Then committing a German note on machine A fails with "not English"
