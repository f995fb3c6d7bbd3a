package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agenttui/agenttui/internal/session/export"
	"github.com/agenttui/agenttui/internal/txtar"
	"github.com/agenttui/agenttui/runtime/journal"
	"github.com/agenttui/agenttui/runtime/model"
)

// exportLeftShown is how many left-out paths the report names one by one.
const exportLeftShown = 12

// runExport is "agenttui sessions export ID [--out FILE] [--workspace-from
// DIR]": it turns a journaled session into a scenario that plays it again,
// the person included, and with --workspace-from packs the folder the
// session started from as the scenario's workspace archive, beside it.
func runExport(args []string, stdout, stderr io.Writer) (int, error) {
	const command = "agenttui sessions export"
	var out, from string
	usage := "ID [--out FILE] [--workspace-from DIR]\n\n" +
		"Turns a journaled session into a scenario file that plays it again: each reply with its text, its calls\n" +
		"with their exact arguments and the model's timing, and the person's inputs and decisions, which\n" +
		"agenttui --scenario FILE --autopilot plays."
	ids, err := parseInterleaved(command, args, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "write the scenario to FILE, which must not exist (default: standard output)")
		fs.StringVar(&from, "workspace-from", "", "pack the folder DIR, in the state the session started from, as the scenario's workspace, "+
			"written beside FILE as NAME.txtar")
	}, stdout, usage)
	if errors.Is(err, flag.ErrHelp) {
		return 0, err
	} else if err != nil {
		return 2, err
	}
	switch {
	case len(ids) != 1:
		return 2, usagef("%s takes one session id (agenttui sessions lists them), not %d", command, len(ids))
	case from != "" && out == "":
		return 2, usagef("--workspace-from needs --out FILE: the workspace archive is written beside the scenario file")
	}
	dir, err := journal.Dir()
	if err != nil {
		return 1, err
	}
	path, err := journal.Find(dir, ids[0])
	if err != nil {
		return 2, usageError{err.Error()}
	}
	rp, err := journal.Load(path)
	if err != nil {
		return 2, usageError{err.Error()}
	}
	ex := export.FromJournal(rp)
	if out != "" {
		// The scenario's name is the model's in the header: the file's
		// name reads better there than the session's id.
		ex.Scenario.Name = strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
	}
	if len(ex.Scenario.Steps) == 0 {
		return 2, usagef("session %s has no model reply to play, so there is nothing to export", rp.Header.Session)
	}

	var archive *txtar.Archive
	var packed txtar.Report
	archivePath := ""
	if from != "" {
		if archive, packed, err = txtar.Pack(from, txtar.PackOptions{}); err != nil {
			return 2, usagef("--workspace-from %s: %v", from, unwrapPathError(err))
		}
		archivePath = strings.TrimSuffix(out, filepath.Ext(out)) + ".txtar"
		ex.Scenario.Workspace = filepath.Base(archivePath)
		archive.Comment = []byte(fmt.Sprintf("The workspace of scenario %s: the folder %s, packed by agenttui sessions export.\n",
			filepath.Base(out), from))
	}
	data, err := ex.Scenario.Encode()
	if err != nil {
		return 1, err
	}
	// What is written must read back as a scenario, or nobody can play it.
	if _, err := model.ParseScenario(data); err != nil {
		return 1, fmt.Errorf("session %s does not make a valid scenario: %v", rp.Header.Session, err)
	}
	if out == "" {
		_, err := stdout.Write(data)
		report(stderr, ex.Report("standard output"))
		return 0, err
	}
	if archive != nil {
		if err := createNew(archivePath, txtar.Format(archive)); err != nil {
			return 2, err
		}
	}
	if err := createNew(out, data); err != nil {
		if archive != nil {
			os.Remove(archivePath)
		}
		return 2, err
	}
	report(stderr, ex.Report(out))
	if archive != nil {
		reportPack(stderr, archivePath, archive, packed)
	}
	fmt.Fprintf(stderr, "agenttui: play it with: agenttui --scenario %s --autopilot%s\n", out, ex.PlayFlags())
	return 0, nil
}

// createNew writes a file that must not exist yet: an export never
// overwrites a scenario or an archive made earlier.
func createNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return usagef("%s exists; remove it or choose another name with --out", path)
	}
	if err != nil {
		return usageError{err.Error()}
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// report says the lines of an export's report on w, each as agenttui's own.
func report(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintf(w, "agenttui: %s\n", l)
	}
}

// reportPack says what the workspace archive holds and, one by one up to a
// point, what it left out and why.
func reportPack(w io.Writer, path string, a *txtar.Archive, rep txtar.Report) {
	size := 0
	for _, f := range a.Files {
		size += len(f.Data)
	}
	fmt.Fprintf(w, "agenttui: packed the workspace into %s: %d file(s), %s\n", path, len(a.Files), txtar.Size(int64(size)))
	if len(rep.Left) > 0 {
		fmt.Fprintf(w, "agenttui: left out of the workspace (%d):\n", len(rep.Left))
		for i, l := range rep.Left {
			if i == exportLeftShown {
				fmt.Fprintf(w, "  … and %d more\n", len(rep.Left)-exportLeftShown)
				break
			}
			fmt.Fprintf(w, "  %s: %s\n", l.Path, l.Why)
		}
	}
	if n := len(rep.Executable); n > 0 {
		fmt.Fprintf(w, "agenttui: note: %d executable file(s) lose their executable bit, since an archive keeps no permissions (%s)\n",
			n, strings.Join(rep.Executable[:min(n, 5)], ", "))
	}
}
