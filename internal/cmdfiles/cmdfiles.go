// Package cmdfiles finds the files of a workspace that a command may run:
// the scripts a hook command or an MCP server's command line names, read
// the way the shell and the programs it starts will find them.
//
// A workspace's configuration can name commands that run on the person's
// machine once they trust the workspace. What they trust is the command
// and the workspace files it runs, so a change to such a file must be
// noticed. This package says which files those are; it reads nothing but
// whether a file exists.
//
// A command may run, as far as this package can tell:
//
//   - every word with a "/" that names a path inside the workspace (a
//     leading $CLAUDE_PROJECT_DIR or $AGENTTUI_PROJECT_DIR stands for it),
//     whether the file exists or not;
//   - the script an interpreter is given (sh, bash, zsh, dash, python,
//     node, ruby, perl and the like: `sh hook.sh`), what `source` or `.`
//     reads, and the file after -f or --file (`make -f hooks.mk`), also
//     when it does not exist yet;
//   - the makefile `make` reads when no -f names one (Makefile in its
//     folder, or in the one -C names);
//   - the script a shell's -c runs, read as a command in its turn;
//   - every other word that names a file existing in the workspace.
//
// Words after an output redirection (`> log`) are what the command writes,
// not its code, and are left out. A `cd` moves where later relative words
// are looked for. What a script does in its turn (files it sources,
// includes a makefile pulls in, modules a program imports) is not
// followed.
package cmdfiles

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// projectVars are the ways a command may begin a path with the workspace.
var projectVars = []string{
	"${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR",
	"${AGENTTUI_PROJECT_DIR}", "$AGENTTUI_PROJECT_DIR",
}

// Shell returns the files inside the workspace ws (absolute and clean)
// that the shell command command may run, in the order the command names
// them, each once. The command runs in ws.
func Shell(ws, command string) []string {
	f := finder{ws: filepath.Clean(ws), seen: map[string]bool{}}
	f.shell(command, f.ws, 0)
	return f.out
}

// Argv returns the files inside the workspace ws that the program started
// with the arguments argv (argv[0] is the program) in the folder dir may
// run, as Shell does for a command's words. An MCP server is started so,
// without a shell.
func Argv(ws, dir string, argv []string) []string {
	f := finder{ws: filepath.Clean(ws), seen: map[string]bool{}}
	f.simple(argv, filepath.Clean(dir), 0)
	return f.out
}

// maxDepth bounds how deep shells' -c scripts are read, one inside the
// other.
const maxDepth = 4

// finder collects the files of one command.
type finder struct {
	ws   string
	out  []string
	seen map[string]bool
}

// shell reads a shell command run in dir: its simple commands one after
// the other, a cd in one moving where the next ones run.
func (f *finder) shell(command, dir string, depth int) {
	for _, cmd := range split(command) {
		f.addRedirects(cmd.inputs, dir)
		dir = f.simple(cmd.words, dir, depth)
	}
}

// simple reads one simple command's words run in dir and returns the
// folder the next command runs in (another one after a cd).
func (f *finder) simple(words []string, dir string, depth int) string {
	words = f.expand(words)
	prog := program(words)
	if prog < 0 {
		f.addExisting(words, dir)
		return dir
	}
	name := filepath.Base(words[prog])
	args := words[prog+1:]
	if name == "cd" {
		if len(args) == 1 && !strings.HasPrefix(args[0], "-") {
			return f.resolve(args[0], dir)
		}
		return dir
	}
	// The words in their order first, so that the files they name come
	// in the order the command names them; then what only the program's
	// way of reading its arguments finds (a script that is not there yet).
	f.addNamed(words[prog], dir)
	f.addExisting(args, dir)
	switch {
	case name == "source" || name == ".":
		if len(args) > 0 {
			f.add(f.resolve(args[0], dir))
		}
	case isShell(name):
		if script, ok := shellScript(args); ok {
			if depth < maxDepth {
				f.shell(script, dir, depth+1)
			}
		} else if op := operand(name, args); op != "" {
			f.add(f.resolve(op, dir))
		}
	case isInterpreter(name):
		if op := operand(name, args); op != "" {
			f.add(f.resolve(op, dir))
		}
	case isMake(name):
		f.makefiles(args, dir)
	}
	f.fileOptions(args, dir)
	return dir
}

// expand writes a leading $CLAUDE_PROJECT_DIR as the workspace in every
// word.
func (f *finder) expand(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w
		for _, v := range projectVars {
			if rest, ok := strings.CutPrefix(w, v); ok && (rest == "" || rest[0] == '/') {
				out[i] = f.ws + rest
				break
			}
		}
	}
	return out
}

// program returns the index of the word that names the program, past
// assignments and the wrappers that run the rest as a command (env, exec,
// nohup, …); -1 when there is none.
func program(words []string) int {
	i := 0
	for i < len(words) {
		w := words[i]
		switch {
		case isAssignment(w):
			i++
		case slices.Contains(wrappers, filepath.Base(w)):
			i++
			// A wrapper's own options, such as env -i or nice -n 5.
			for i < len(words) && strings.HasPrefix(words[i], "-") {
				i++
			}
			if filepath.Base(w) == "nice" && i < len(words) && isNumber(words[i]) {
				i++
			}
		default:
			return i
		}
	}
	return -1
}

// wrappers are programs that run the rest of their words as a command.
var wrappers = []string{"env", "exec", "command", "builtin", "nohup", "time", "nice", "sudo", "xargs"}

// isAssignment reports whether w sets a variable for the command, NAME=value.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func isNumber(w string) bool {
	return w != "" && strings.Trim(w, "0123456789") == ""
}

// shells are the programs that read a script or, after -c, a command.
var shells = []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"}

func isShell(name string) bool { return slices.Contains(shells, name) }

// interpreters are programs whose first operand is the script they run.
var interpreters = []string{"node", "nodejs", "deno", "bun", "ruby", "perl", "php", "lua", "luajit", "Rscript", "tclsh", "osascript", "pwsh", "awk", "gawk", "tsx", "ts-node"}

// isInterpreter reports whether name is such a program, python in any of
// its versions included.
func isInterpreter(name string) bool {
	if strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy") {
		return true
	}
	return slices.Contains(interpreters, name)
}

// isMake reports whether name is a make.
func isMake(name string) bool { return name == "make" || name == "gmake" || name == "bmake" }

// shellScript returns the command a shell's -c runs, when it is given one.
func shellScript(args []string) (string, bool) {
	for i, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return "", false
		}
		// -c, or options that end in c, such as -ec or -xc.
		if !strings.HasPrefix(a, "--") && strings.HasSuffix(a, "c") && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// operand returns the script the program name runs from args: the first
// word that is neither an option nor an option's value; "" when an option
// gives the code itself (python -c, node -e) or a module (python -m).
// "deno run x" and "bun run x" name theirs after the subcommand.
func operand(name string, args []string) string {
	kind := name
	if strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy") {
		kind = "python"
	} else if isShell(name) {
		kind = "sh"
	}
	valued, code := optionsOf[kind].valued, optionsOf[kind].code
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case a == "run" && i == 0:
		case slices.Contains(code, a):
			return ""
		case slices.Contains(valued, a):
			i++
		case strings.HasPrefix(a, "-") || kind == "sh" && strings.HasPrefix(a, "+"):
		default:
			return a
		}
	}
	return ""
}

// optionsOf are, for the programs whose options matter, those that take
// the next word as their value, and those that give the code to run (or a
// module) in place of a script.
var optionsOf = map[string]struct{ valued, code []string }{
	"sh":     {valued: []string{"-o", "+o", "-O", "+O"}, code: []string{"-s"}},
	"python": {valued: []string{"-W", "-X", "--check-hash-based-pycs"}, code: []string{"-c", "-m"}},
	"node":   {valued: []string{"-r", "--require", "--import", "--loader", "--env-file", "-C", "--conditions"}, code: []string{"-e", "--eval", "-p", "--print"}},
	"nodejs": {valued: []string{"-r", "--require", "--import", "--loader"}, code: []string{"-e", "--eval", "-p", "--print"}},
	"deno":   {code: []string{"eval"}},
	"bun":    {valued: []string{"-r", "--preload"}, code: []string{"-e", "--eval", "-p", "--print"}},
	"ruby":   {valued: []string{"-r", "-I", "-E", "-C"}, code: []string{"-e"}},
	"perl":   {valued: []string{"-I", "-M", "-m"}, code: []string{"-e", "-E"}},
	"php":    {valued: []string{"-d", "-c"}, code: []string{"-r"}},
	"lua":    {valued: []string{"-l"}, code: []string{"-e"}},
	"awk":    {valued: []string{"-v", "-F"}},
	"gawk":   {valued: []string{"-v", "-F"}},
}

// makefiles adds the makefiles a make command reads: those -f names, else
// the default ones in its folder (or the one -C names).
func (f *finder) makefiles(args []string, dir string) {
	named := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || a == "--file" || a == "--makefile":
			named = true
		case strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "--makefile="):
			named = true
		case strings.HasPrefix(a, "-f") && !strings.HasPrefix(a, "--"):
			named = true
		case a == "-C" || a == "--directory":
			if i+1 < len(args) {
				dir = f.resolve(args[i+1], dir)
				i++
			}
		case strings.HasPrefix(a, "--directory="):
			dir = f.resolve(strings.TrimPrefix(a, "--directory="), dir)
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			dir = f.resolve(a[2:], dir)
		}
	}
	if named {
		return
	}
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if p := filepath.Join(dir, name); isFile(p) {
			f.add(p)
			return
		}
	}
}

// fileOptions adds the file after -f or --file, or in --file=, whatever
// the program: the script or definitions it reads.
func (f *finder) fileOptions(args []string, dir string) {
	for i, a := range args {
		switch {
		case (a == "-f" || a == "--file" || a == "--makefile") && i+1 < len(args):
			f.add(f.resolve(args[i+1], dir))
		case strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "--makefile="):
			_, v, _ := strings.Cut(a, "=")
			f.add(f.resolve(v, dir))
		case strings.HasPrefix(a, "-f") && len(a) > 2 && !strings.HasPrefix(a, "--") && !strings.ContainsAny(a[2:], "-="):
			// -fhooks.mk: only when it names an existing file, since
			// short options are often bundled (-fv).
			if p := f.resolve(a[2:], dir); isFile(p) {
				f.add(p)
			}
		}
	}
}

// addNamed adds the program's own word when it is a path: ./hook.sh.
func (f *finder) addNamed(w, dir string) {
	if strings.Contains(w, "/") {
		f.add(f.resolve(w, dir))
	} else if p := f.resolve(w, dir); isFile(p) {
		f.add(p)
	}
}

// addExisting adds every word that is a path, or names a file that exists,
// and the values of --option=value words likewise.
func (f *finder) addExisting(words []string, dir string) {
	for _, w := range words {
		if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			w = v
		}
		if w == "" || strings.HasPrefix(w, "-") {
			continue
		}
		f.addNamed(w, dir)
	}
}

// addRedirects adds the files a command reads its input from: `sh <
// hook.sh` runs hook.sh.
func (f *finder) addRedirects(inputs []string, dir string) {
	for _, w := range f.expand(inputs) {
		f.add(f.resolve(w, dir))
	}
}

// resolve returns the path w names from dir, clean; "" for one in the
// person's home, which is not the workspace's.
func (f *finder) resolve(w, dir string) string {
	if w == "" || strings.HasPrefix(w, "~") || strings.ContainsAny(w, "$`*?[") {
		return ""
	}
	if filepath.IsAbs(w) {
		return filepath.Clean(w)
	}
	return filepath.Join(dir, w)
}

// add keeps p when it lies inside the workspace and is not a folder (the
// workspace itself is not a file, nor is `src/` a script).
func (f *finder) add(p string) {
	if p == "" || f.seen[p] {
		return
	}
	if info, err := os.Stat(p); err == nil && info.IsDir() {
		return
	}
	rel, err := filepath.Rel(f.ws, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return
	}
	f.seen[p] = true
	f.out = append(f.out, p)
}

// isFile reports whether p is a file (or a link to one) that exists.
func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}
