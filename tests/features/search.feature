Feature: Ranked search over the notes
  Agents search the memory before every task. The right note must come back first,
  whatever words the developer used and however odd the query is.

  Background:
    Given a memory repository with the committed notes
      | path                               | title                          | tags             | body                                                                  |
      | notes/windows/handles.md           | Windows gotchas for developers | windows, paths   | Long paths, PATH order and line endings on Windows.                   |
      | notes/windows/file-locking.md      | Build fails: file in use       | build            | Another process keeps a handle open; file-locking blocks the delete.  |
      | notes/wsl/memory.md                | Taming WSL memory              | wsl              | The vmmem process grows; cap it with memory=4GB in .wslconfig.        |
      | notes/git/line-endings.md          | Line endings in git            | git              | Colleagues on Windows should set core.autocrlf to input.              |
      | notes/docker/desktop.md            | Docker Desktop disk usage      | docker           | Docker Desktop on Windows keeps images in a VHDX; prune them.         |
    And the index is built

  Scenario: A stemmed word finds a hyphenated compound
    When I search for "file lock"
    Then the first hit is "notes/windows/file-locking.md"
    And the search answered with all words matched

  Scenario: Configuration file names are searchable words
    When I search for "vmmem wslconfig"
    Then the first hit is "notes/wsl/memory.md"

  Scenario: The note about a topic ranks above notes that mention it
    When I search for "windows"
    Then the first hit is "notes/windows/handles.md"
    And there are at least 3 hits

  Scenario: Ranked OR answers when no note has every word
    When I search for "vmmem kubernetes"
    Then the first hit is "notes/wsl/memory.md"
    And the search answered with any word

  Scenario Outline: Query syntax in user text is never an error
    When I search for "<query>"
    Then the search succeeds

    Examples:
      | query        |
      | "unbalanced  |
      | C++          |
      | foo:bar      |
      | NEAR windows |
      | -x           |
      | AND OR NOT   |

  Scenario: A query with no words is a usage error
    When I search for "!!!"
    Then the command fails with exit code 2 and says "the query has no words"
