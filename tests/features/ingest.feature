Feature: Ingest builds the index from the notes at HEAD
  The notes in git are the only truth. The index is expendable: deleting it and
  ingesting again gives the same answers, and a bad file never hides the good ones.

  Scenario: Committed notes are indexed, uncommitted edits are not memory yet
    Given a memory repository with the committed notes
      | path             | title   | tags | body                 |
      | notes/a.md       | Alpha   | x    | committed paragraph  |
    And the note "notes/b.md" is written but not committed
    When I run "memidx ingest"
    Then the command succeeds
    And searching for "committed" finds "notes/a.md"
    And searching for "draft" finds nothing

  Scenario: A file that cannot be indexed is skipped with a reason
    Given a memory repository with the committed notes
      | path             | title   | tags | body             |
      | notes/good.md    | Good    | x    | healthy words    |
    And a committed binary file "notes/image.md"
    When I run "memidx ingest"
    Then the command fails with exit code 1 and says "notes/image.md: skipped: binary file"
    And searching for "healthy" finds "notes/good.md"

  Scenario: Deleting the index and ingesting again rebuilds it exactly
    Given a memory repository with the committed notes
      | path             | title   | tags | body             |
      | notes/a.md       | Alpha   | x    | first words      |
      | notes/b.md       | Beta    | y    | second words     |
    And the index is built
    When the index is deleted
    And I run "memidx ingest"
    Then the command succeeds
    And the index holds the same documents as before
