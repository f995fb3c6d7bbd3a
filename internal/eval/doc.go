// Package eval is agenttui's eval harness, "agenttui eval SUITE": it runs a
// suite of goals, checks what each run ended in, and reports how many
// passed, so that a person can measure how a model, a prompt or a setting
// does, and compare one against another.
//
// # Suites
//
// A suite is a JSON file, or a folder whose top-level *.json files are each
// a suite (sorted by name). In a folder, scenario files and workspaces live
// in a subfolder, since every top-level JSON file is read as a suite and
// one without "cases" is malformed. Paths in a suite are relative to the
// suite file.
//
//	{
//	  "name": "smoke",
//	  "cases": [
//	    {
//	      "name": "fix-typo",
//	      "goal": "Fix the typo in README.md",
//	      "workspace": "cases/fix-typo.txtar",
//	      "model": "cases/fix-typo.scenario.json",
//	      "mode": "auto",
//	      "answers": ["use British spelling"],
//	      "expect": {
//	        "status": "succeeded",
//	        "data": [{"pointer": "/file", "equals": "README.md"},
//	                 {"pointer": "/changed", "contains": "README.md"}],
//	        "files": [{"path": "README.md", "contains": "receive"},
//	                  {"path": "notes.txt", "exists": false}],
//	        "max_turns": 5,
//	        "max_tokens": 20000,
//	        "max_cost_usd": 0.05
//	      }
//	    }
//	  ]
//	}
//
// The suite's "name" is optional; it defaults to the file's name without
// ".json". Every case has:
//
//   - "name" (required): unique across the whole suite folder, since the
//     report and JUnit name a case by it.
//   - "goal" (required): what the agent is asked, as a person would type it.
//   - "model" (required): a scenario file (a path ending in ".json", the
//     scripted model of a reproducible run; it is checked when the suite is
//     loaded) or a model spec, "openai:NAME" or "anthropic:NAME".
//   - "workspace" (optional): a txtar archive of the files the run starts
//     from, unpacked into a fresh temporary folder for every run; without
//     it the run starts in an empty folder.
//   - "mode" (optional): the approval mode, ask, reads, auto or plan;
//     default auto. Nobody can approve a call during an eval, so a call
//     that would ask is skipped, as in a headless run: ask and reads test
//     how an agent copes with being held back.
//   - "answers" (optional): answers to the agent's clarification questions,
//     used in order; a question with no answer left ends the run as refused.
//   - "expect" (optional): what the run must end in.
//
// The expectations, each checked after the run:
//
//   - "status": succeeded, failed or refused; default succeeded.
//   - "data": checks on the extracted_data of a succeeded run (so they need
//     status succeeded). Each has a "pointer", a JSON pointer (RFC 6901: ""
//     is the whole value, "/a/0" the first element of a's array, ~1 stands
//     for / and ~0 for ~ in a key), and exactly one of "equals" (the value
//     is JSON-equal: numbers compare as numbers, objects regardless of key
//     order) or "contains" (a string holds the given string, an array has an
//     element JSON-equal to the given value, an object has the given key).
//   - "files": checks on the workspace the run left. Each has a "path"
//     (relative, inside the workspace) and "exists" (true or false) and/or
//     "contains" (a string the file must hold).
//   - "max_turns", "max_tokens" (input and output together) and
//     "max_cost_usd": bounds on what the run used. A run whose cost is not
//     known (a model with no price) fails max_cost_usd, saying so.
//
// A suite that cannot be read as such is a *SuiteError, whose one-line
// message names the file and the problem; unknown fields are refused
// everywhere, so that a misspelt expectation is never silently not checked.
//
// # Runs and reports
//
// Run runs every case Options.Repeat times, Options.Parallel runs at once,
// each in a fresh temporary folder, and checks each run: the status first,
// then the data, the files and the bounds. Every failing check is recorded;
// the first is the one the table shows. A case passes when all its runs
// pass, since a case that passes only sometimes is flaky.
//
// The Report prints three ways:
//
//   - Table, for a person: one row per case (CASE, RESULT, PASSED, FIRST
//     FAILING CHECK, and the mean TURNS, TOKENS, COST and DURATION of its
//     runs), then a summary line.
//   - JSON, JSON Lines for scripts: one {"type":"case"} object per case,
//     with "suite", "name", "passed", "runs_passed", "runs", "pass_rate",
//     "first_failure" (null when it passed) and "results", one per run:
//     "run", "passed", "failures", "status", "outcome" (the GoalOutcome's
//     own JSON), "turns", "tokens", "cost_usd" (null when not known),
//     "duration_ms", "session", and "error" when the case could not be run
//     at all (its status and outcome are then null). A {"type":"summary"}
//     object ends it: "cases", "cases_passed", "cases_failed", "runs",
//     "runs_passed", "pass_rate", "duration_ms".
//   - JUnit XML for CI: a testsuite per suite file, a testcase per run,
//     a failure holding every failing check.
//
// Command is "agenttui eval" itself, which exits 0 when every case passed,
// 1 when a case failed, and 2 for a usage error or a malformed suite; the
// caller supplies the RunFunc that runs one case with a real agent.
package eval
