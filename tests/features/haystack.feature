Feature: The haystack keeps every turn verbatim
  The log is the truth; the index only points into it and can be rebuilt from it.

  Background:
    Given a memory repository with the committed notes
      | path             | title   | tags | body             |
      | notes/a.md       | Alpha   | x    | alpha words      |
    And the index is built

  Scenario: A filed turn is searchable at once, and filing it again is harmless
    When I file the turn "the flaky test was a race on the temp dir" in session "s-1"
    Then searching turns for "flaky race" finds that turn
    When I file the turn "the flaky test was a race on the temp dir" in session "s-1"
    Then it is reported as already filed

  Scenario: Deleting the index and ingesting rebuilds the records from the log
    When I file the turn "remember the retry budget" in session "s-2"
    And the index is deleted
    And I run "memidx ingest"
    Then searching turns for "retry budget" finds that turn
