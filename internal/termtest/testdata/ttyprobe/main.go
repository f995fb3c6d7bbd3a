// Command ttyprobe is a small terminal program that the termtest tests drive
// through a pseudo-terminal.
//
// With no arguments it switches the terminal to raw mode, draws a few lines
// with cursor movement, wide characters and colour, asks for the cursor
// position (DSR 6n) and shows the answer, then echoes every read from the
// terminal as a quoted string and reports its size on SIGWINCH. "m" switches
// on application cursor mode; "q" ends it with exit code 3.
//
// "ttyprobe exit N" prints "bye" and exits with code N.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

var outMu sync.Mutex

// say writes s to the terminal; the reader and the SIGWINCH handler both
// write, so writes are serialised.
func say(format string, args ...any) {
	outMu.Lock()
	defer outMu.Unlock()
	fmt.Fprintf(os.Stdout, format, args...)
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "exit" {
		code, err := strconv.Atoi(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Print("bye\r\n")
		os.Exit(code)
	}
	os.Exit(probe())
}

func probe() int {
	old, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		fmt.Fprintln(os.Stderr, "not a terminal:", err)
		return 2
	}
	raw := *old
	// cfmakeraw: no echo, no line buffering, no signals, no output
	// processing (so lines end in "\r\n").
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Oflag &^= unix.OPOST
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(0, unix.TCSETS, &raw); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer unix.IoctlSetTermios(0, unix.TCSETS, old)

	say("\x1b[2J\x1b[Hline one\r\n")
	say("\x1b[4;11Hmoved")        // row 3, column 10 counted from 0
	say("\x1b[2;1H\x1b[5Cx")      // row 1, column 5
	say("\x1b[6;1Hwide: 日本語 end") // wide characters
	say("\x1b[7;1H\x1b[1;31mRED\x1b[0m plain")

	// Ask for the cursor position and read the answer, ESC [ row ; col R.
	say("\x1b[9;3H\x1b[6n")
	var reply []byte
	b := make([]byte, 1)
	for len(reply) < 32 {
		if _, err := os.Stdin.Read(b); err != nil {
			break
		}
		reply = append(reply, b[0])
		if b[0] == 'R' {
			break
		}
	}
	say("\x1b[10;1Hdsr=%q", reply)
	say("\x1b[11;1H%s", size())

	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go func() {
		for range winch {
			say("\r\n%s", size())
		}
	}()

	say("\x1b[12;1Hready")
	buf := make([]byte, 256)
	for {
		n, err := os.Stdin.Read(buf)
		if err != nil {
			return 1
		}
		if string(buf[:n]) == "m" {
			say("\x1b[?1h\r\ncursor keys: application")
			continue
		}
		if string(buf[:n]) == "q" {
			say("\r\nquit")
			return 3
		}
		say("\r\nkey=%q", buf[:n])
	}
}

func size() string {
	ws, err := unix.IoctlGetWinsize(1, unix.TIOCGWINSZ)
	if err != nil {
		return "size=" + err.Error()
	}
	return fmt.Sprintf("size=%dx%d", ws.Col, ws.Row)
}
