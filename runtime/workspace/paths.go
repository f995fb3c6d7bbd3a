package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agenttui/agenttui/runtime/tool"
)

// maxLinks bounds how many symbolic links one path may go through, like the
// kernel's own limit, so that a link cycle ends in an error and not a loop.
const maxLinks = 40

// resolved is a path argument resolved inside the workspace.
type resolved struct {
	// abs is the absolute, clean path with every existing symbolic link
	// followed; components that do not exist yet are appended as given.
	abs string
	// rel is abs relative to the workspace root: "." for the root itself. It
	// is what the os.Root operations take.
	rel string
	// missing says some component of abs does not exist.
	missing bool
}

// outsideError reports a path that resolves outside the workspace.
type outsideError struct{ given string }

func (e *outsideError) Error() string { return e.given + " is outside the workspace" }

// dotDotError reports a ".." that follows a component that does not exist,
// which the kernel cannot follow and which therefore names nothing.
type dotDotError struct {
	// missing is the component that does not exist.
	missing string
	// dir is the resolved folder that lacks it.
	dir string
}

func (e *dotDotError) Error() string {
	return fmt.Sprintf("the path goes up with .. after %s, which does not exist", e.missing)
}

// nulError reports a path argument holding a NUL character, which no file
// name can hold and the kernel refuses.
type nulError struct{ given string }

func (e *nulError) Error() string {
	return holdsNUL("path", e.given, "which no file name can contain")
}

// holdsNUL is what the model reads when the argument what, given as s,
// holds a NUL character, and why it cannot. s is quoted as JSON quotes it,
// so the NUL reads as \u0000, as the model wrote it: a raw NUL would make
// the whole result read as a binary output, and hide the reason.
func holdsNUL(what, s, why string) string {
	return fmt.Sprintf("%s %s holds a NUL character, %s; nothing was done", what, quoteArg(s), why)
}

// maxQuoted bounds how much of an argument a message quotes.
const maxQuoted = 200

// quoteArg quotes s as a JSON string, cut to maxQuoted characters.
func quoteArg(s string) string {
	if r := []rune(s); len(r) > maxQuoted {
		s = string(r[:maxQuoted-1]) + "…"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// errTooManyLinks reports a path that goes through more than maxLinks
// symbolic links, most likely a cycle.
var errTooManyLinks = errors.New("too many levels of symbolic links")

// walkError is an error met while resolving the component at.
type walkError struct {
	at  string
	err error
}

func (e *walkError) Error() string { return e.at + ": " + e.err.Error() }
func (e *walkError) Unwrap() error { return e.err }

// resolve resolves the path argument p against the workspace the way the
// kernel would: relative to the root, following every symbolic link, with
// ".." taken after the links before it are followed (so "link/.." is the
// parent of the link's target, not the folder holding the link). A path whose
// tail does not exist yet resolves its deepest existing ancestor and appends
// the rest, which must not contain "..". The result must be the root or below
// it, compared component by component; otherwise the error is an
// *outsideError.
func (w *Workspace) resolve(p string) (resolved, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return resolved{}, &nulError{given: p}
	}
	start := w.root
	if filepath.IsAbs(p) {
		start = "/"
	}
	abs, missing, err := walk(start, p)
	if err != nil {
		var dd *dotDotError
		var we *walkError
		switch {
		case errors.As(err, &dd):
			// The path names nothing; if it got outside before the missing
			// component, or its text points outside, the model should hear
			// that rather than a puzzle about "..".
			if !w.inside(dd.dir) || !w.inside(w.asGiven(p)) {
				return resolved{}, &outsideError{given: p}
			}
		case errors.As(err, &we):
			// A component that cannot be examined in a folder outside the
			// workspace is outside the workspace, whatever the reason.
			if !w.inside(filepath.Dir(we.at)) {
				return resolved{}, &outsideError{given: p}
			}
		}
		return resolved{}, err
	}
	if !w.inside(abs) {
		return resolved{}, &outsideError{given: p}
	}
	rel := "."
	if abs != w.root {
		rel = strings.TrimPrefix(abs, strings.TrimSuffix(w.root, "/")+"/")
	}
	return resolved{abs: abs, rel: rel, missing: missing}, nil
}

// inside reports whether the clean absolute path p is the root or below it,
// component by component, so /ws-evil is not inside /ws.
func (w *Workspace) inside(p string) bool {
	if p == w.root || w.root == "/" {
		return true
	}
	return strings.HasPrefix(p, w.root+"/")
}

// asGiven returns p as an absolute clean path without resolving any link:
// relative paths are taken from the root. Footprints use it for paths that
// cannot be resolved inside the workspace.
func (w *Workspace) asGiven(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(w.root, p)
}

// footprintPath returns the absolute path a call on p touches: the resolved
// path when p resolves inside the workspace, else p as given (such a call is
// denied or fails when it runs, so what it would have touched is moot).
func (w *Workspace) footprintPath(p string) string {
	if res, err := w.resolve(p); err == nil {
		return res.abs
	}
	return w.asGiven(p)
}

// walk resolves p, starting from the resolved absolute folder start, one
// component at a time, following symbolic links. It reports whether a
// component was missing, in which case the rest of p is appended as given.
func walk(start, p string) (abs string, missing bool, err error) {
	dest := start
	rest := p
	links := 0
	for rest != "" {
		var comp string
		comp, rest = nextComponent(rest)
		switch comp {
		case "", ".":
			continue
		case "..":
			// dest has no links left in it, so its parent is the real one.
			dest = filepath.Dir(dest)
			continue
		}
		next := filepath.Join(dest, comp)
		info, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				for r := rest; r != ""; {
					var c string
					c, r = nextComponent(r)
					if c == ".." {
						return "", false, &dotDotError{missing: comp, dir: dest}
					}
				}
				return filepath.Join(next, rest), true, nil
			}
			return "", false, &walkError{at: next, err: err}
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			if !info.IsDir() && strings.Trim(rest, "/") != "" {
				// The kernel goes through folders only; taking a ".." after
				// a file textually would invent a path it refuses.
				return "", false, &walkError{at: next, err: syscall.ENOTDIR}
			}
			dest = next
			continue
		}
		links++
		if links > maxLinks {
			return "", false, &walkError{at: next, err: errTooManyLinks}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", false, &walkError{at: next, err: err}
		}
		if filepath.IsAbs(target) {
			dest = "/"
		}
		rest = target + "/" + rest
	}
	return dest, false, nil
}

// nextComponent splits the first component off p, skipping leading slashes.
func nextComponent(p string) (comp, rest string) {
	p = strings.TrimLeft(p, "/")
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, ""
}

// outsideReason is what the model reads when a path is outside the
// workspace.
func (w *Workspace) outsideReason(given string) string {
	return fmt.Sprintf("%s is outside the workspace %s; only files inside it can be read or changed", given, w.root)
}

// display returns how messages name a path argument: relative paths as the
// model gave them, cleaned, and absolute ones relative to the workspace.
func display(given string, res resolved) string {
	if given == "" {
		return "."
	}
	if !filepath.IsAbs(given) {
		return filepath.Clean(given)
	}
	if res.rel == "" {
		// The path did not resolve; show it as the model wrote it.
		return given
	}
	return res.rel
}

// pathFailure turns an error from resolving or operating on a path into what
// the model reads. name is how the path is shown; notFound is the whole
// sentence for a missing path, since each tool suggests a different next
// step.
func (w *Workspace) pathFailure(err error, given, name, notFound string) tool.Return {
	var outside *outsideError
	var dd *dotDotError
	var nul *nulError
	switch {
	case errors.As(err, &nul):
		msg := nul.Error()
		return tool.Fail(tool.InvalidArgs(msg), msg)
	case errors.As(err, &outside):
		return tool.Deny(w.outsideReason(given))
	case escapedRoot(err):
		// The path was checked inside, but os.Root saw it leave the
		// workspace: a link changed in between. Refuse it all the same.
		return tool.Deny(w.outsideReason(given))
	case errors.As(err, &dd):
		msg := fmt.Sprintf("%s cannot be used: %v; give a path without ..", given, dd)
		return tool.Fail(tool.InvalidArgs(msg), msg)
	case errors.Is(err, errTooManyLinks), errors.Is(err, syscall.ELOOP):
		msg := fmt.Sprintf("%s cannot be used: it goes through too many symbolic links (a link cycle?)", name)
		return tool.Fail(tool.InvalidArgs(msg), msg)
	case errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENAMETOOLONG):
		msg := fmt.Sprintf("%q is not a valid path: %v", given, w.relErr(err))
		return tool.Fail(tool.InvalidArgs(msg), msg)
	case errors.Is(err, syscall.ENOTDIR):
		msg := fmt.Sprintf("%s does not exist: part of the path is a file, not a folder", name)
		return tool.Fail(tool.NotFound(msg), msg)
	case errors.Is(err, fs.ErrNotExist):
		return tool.Fail(tool.NotFound(notFound), notFound)
	case errors.Is(err, fs.ErrPermission):
		msg := fmt.Sprintf("%s: permission denied by the operating system", name)
		return tool.Fail(tool.PermissionDenied(msg), msg)
	default:
		msg := fmt.Sprintf("%s: %v", name, w.relErr(err))
		return tool.Fail(tool.Other(msg), msg)
	}
}

// escapedRoot reports whether err is os.Root's refusal of a path that leaves
// the root. os does not export that error, so its text is matched.
func escapedRoot(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// relErr returns the text of err with the workspace root taken out of any
// path in it, so the model reads workspace-relative paths.
func (w *Workspace) relErr(err error) string {
	return strings.ReplaceAll(err.Error(), w.root+"/", "")
}
