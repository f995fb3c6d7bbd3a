package tui

import (
	"fmt"
	"runtime"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestZZMem(t *testing.T) {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	m := New(Options{Bridge: NewBridge(nil), Prefill: "Customers say the last page of results is missing", Demo: true})
	runtime.ReadMemStats(&b)
	fmt.Println("New", (b.TotalAlloc-a.TotalAlloc)/1024, "KB")
	nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	runtime.ReadMemStats(&a)
	fmt.Println("Update", (a.TotalAlloc-b.TotalAlloc)/1024, "KB")
	_ = nm.View()
	runtime.ReadMemStats(&b)
	fmt.Println("View", (b.TotalAlloc-a.TotalAlloc)/1024, "KB")
}
