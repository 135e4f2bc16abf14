Feature: Reconcile finds and repairs drift between the index and HEAD
  A commit made without the hooks leaves the index behind. Reconcile names the
  difference and repairs only what differs.

  Background:
    Given a memory repository with the committed notes
      | path             | title   | tags | body             |
      | notes/a.md       | Alpha   | x    | alpha words      |
      | notes/b.md       | Beta    | y    | beta words       |
    And the index is built

  Scenario: An index in step reports no drift
    When I run "memidx reconcile"
    Then the command succeeds

  Scenario: A commit behind the index's back is drift
    Given the note "notes/b.md" is changed to say "gamma words" and committed
    When I run "memidx reconcile"
    Then the command fails with exit code 1 and says "1 stale"

  Scenario: Reconcile --fix repairs the stale note and keeps the others
    Given the note "notes/b.md" is changed to say "gamma words" and committed
    When I run "memidx reconcile --fix"
    Then the command succeeds
    And searching for "gamma" finds "notes/b.md"
    And the row of "notes/a.md" was not rewritten
