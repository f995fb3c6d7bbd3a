package runtime

import "github.com/agenttui/agenttui/runtime/tool"

// replyPlan is the dependency graph of one reply's calls.
type replyPlan struct {
	// deps[j] lists the earlier calls j conflicts with, in call order.
	deps [][]int
	// dependents[i] lists the later calls that depend on i.
	dependents [][]int
	// batch[j] is 1 + the highest batch of j's dependencies; calls of one
	// batch may run together.
	batch []int
}

// planCalls derives the dependencies and batches of calls with the given
// footprints: call j depends on every earlier call i it conflicts with.
//
// Two calls that do not write never conflict, so a call that does not write
// is checked only against the earlier writers; a reply of many reads plans in
// linear time.
func planCalls(touches []tool.Touches) replyPlan {
	n := len(touches)
	p := replyPlan{deps: make([][]int, n), dependents: make([][]int, n), batch: make([]int, n)}
	var writers []int
	for j := range n {
		level := 1
		depend := func(i int) {
			if touches[i].ConflictsWith(touches[j]) {
				p.deps[j] = append(p.deps[j], i)
				p.dependents[i] = append(p.dependents[i], j)
				level = max(level, p.batch[i]+1)
			}
		}
		if touches[j].Access == tool.AccessWrites {
			for i := range j {
				depend(i)
			}
			writers = append(writers, j)
		} else {
			for _, i := range writers {
				depend(i)
			}
		}
		p.batch[j] = level
	}
	return p
}
