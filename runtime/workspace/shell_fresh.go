package workspace

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A command's output is judged as the files it reads would be: read_file
// on a file that is new since the session began gives an untrusted result,
// and so must `cat`, `head`, `sed -n p` or `less` on it. Which files a
// command reads cannot be known, but the files it names can: each word of
// the command (split at blanks, quotes and shell punctuation, globs
// expanded) that names a regular file is looked at before and after it
// runs. A named file that is fresh, and that the command left as it was,
// makes the output fresh: the command may have printed it. A file the
// command itself created or changed (cp, curl -o, a redirection) makes it
// fresh only when the output holds a line of the file, so that building
// into bin/app or writing a coverage profile does not mark a compiler's
// messages, while `cp x n && cat n` is caught.

// Bounds of the look at the named files, so that a long command costs a
// few hundred file-status calls at most.
const (
	// freshWords is how many distinct words of a command are looked at.
	freshWords = 256
	// freshMatches is how many files the command's globs may name, in all.
	freshMatches = 256
	// freshSample is how much of a file the command changed is read to
	// see whether the output shows it.
	freshSample = 64 << 10
	// freshLines is how many of the sample's lines are looked for.
	freshLines = 64
	// freshLine is how long a line must be to count as shown.
	freshLine = 8
)

// stamp is what says a file changed: its size and times.
type stamp struct {
	size         int64
	mtime, ctime time.Time
	fresh        bool
}

// namedStamps returns the stamps of the regular files command names, by
// absolute path; nil when no session start is set, so that nothing is
// fresh.
func (w *Workspace) namedStamps(command string) map[string]stamp {
	if w.sessionStart.IsZero() {
		return nil
	}
	out := map[string]stamp{}
	for _, p := range w.namedPaths(command) {
		if s, ok := w.stampOf(p); ok {
			out[p] = s
		}
	}
	return out
}

// stampOf returns the stamp of the regular file at p, following a symbolic
// link; a link that is itself fresh makes the stamp fresh.
func (w *Workspace) stampOf(p string) (stamp, bool) {
	info, err := os.Stat(p)
	if err != nil || !info.Mode().IsRegular() {
		return stamp{}, false
	}
	s := stamp{size: info.Size(), mtime: info.ModTime(), fresh: w.fresh(info)}
	s.ctime, _ = changeTime(info)
	if !s.fresh {
		if l, err := os.Lstat(p); err == nil && l.Mode()&fs.ModeSymlink != 0 {
			s.fresh = w.fresh(l)
		}
	}
	return s, true
}

// printedFresh reports whether the output of command, which named the files
// before describes (as namedStamps gave them before it ran), may show a
// file that is new since the session began.
func (w *Workspace) printedFresh(command string, before map[string]stamp, output string) bool {
	if before == nil {
		return false
	}
	for _, p := range w.namedPaths(command) {
		now, ok := w.stampOf(p)
		if !ok || !now.fresh {
			continue
		}
		if was, ok := before[p]; ok && was.size == now.size && was.mtime.Equal(now.mtime) && was.ctime.Equal(now.ctime) {
			return true // a new file the command read as it was
		}
		if showsLine(p, output) {
			return true // one it made, and printed
		}
	}
	return false
}

// showsLine reports whether output holds one of the first lines of the
// file at p that are at least freshLine bytes long.
func showsLine(p, output string) bool {
	// Non-blocking, so that a file swapped for a FIFO cannot hold the
	// call.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, freshSample)
	n, _ := io.ReadFull(f, buf)
	looked := 0
	for line := range strings.Lines(string(buf[:n])) {
		line = strings.TrimRight(line, "\r\n")
		if len(strings.TrimSpace(line)) < freshLine {
			continue
		}
		if strings.Contains(output, line) {
			return true
		}
		if looked++; looked == freshLines {
			break
		}
	}
	return false
}

// namedPaths returns the absolute paths of what command's words may name:
// each word relative to the workspace (or absolute, or below ~/), and what
// the words with glob characters match, within the bounds. The kernel's
// own file systems (/proc, /sys, /dev) are left out: their files are not
// content that entered the machine.
func (w *Workspace) namedPaths(command string) []string {
	var out []string
	seen := map[string]bool{}
	matches := 0
	home, _ := os.UserHomeDir()
	for _, word := range commandWords(command, freshWords) {
		switch {
		case strings.HasPrefix(word, "~/") && home != "":
			word = filepath.Join(home, word[2:])
		case !filepath.IsAbs(word):
			word = filepath.Join(w.root, word)
		}
		word = filepath.Clean(word)
		if kernelFS(word) {
			continue
		}
		paths := []string{word}
		if strings.ContainsAny(word, "*?[") {
			if matches >= freshMatches {
				continue
			}
			paths, _ = filepath.Glob(word)
			paths = paths[:min(len(paths), freshMatches-matches)]
			matches += len(paths)
		}
		for _, p := range paths {
			if !seen[p] && !kernelFS(p) {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// kernelFS reports whether p is in one of the kernel's file systems.
func kernelFS(p string) bool {
	for _, d := range []string{"/proc", "/sys", "/dev"} {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// commandWords returns up to limit distinct words of command: its runs of
// bytes between blanks, quotes and the shell's punctuation, so that
// `cat<"notes.txt"`, `--file=notes.txt` and `open('notes.txt')` each give
// notes.txt. Quoting is not undone: a word with an escaped blank in it is
// two words.
func commandWords(command string, limit int) []string {
	var out []string
	seen := map[string]bool{}
	for w := range strings.FieldsFuncSeq(command, wordBreak) {
		if len(out) == limit {
			break
		}
		if len(w) < 4096 && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// wordBreak reports whether r ends a word of a command line.
func wordBreak(r rune) bool {
	return r <= ' ' || strings.ContainsRune("'\"`;|&<>(){}$=,\\", r)
}
