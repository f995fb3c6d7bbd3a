package autopilot

import "strings"

// Status is what the status bar says of the autopilot, and whether it
// wants the person's attention; resumeKey names the key that resumes it.
func (p *Pilot) Status(resumeKey string) (string, bool) {
	switch {
	case p == nil:
		return "", false
	case p.Done:
		return "autopilot: " + p.Say, false
	case p.Paused:
		if strings.HasPrefix(p.Say, "paused:") {
			return "⏸ autopilot " + p.Say, true
		}
		return "⏸ autopilot paused · " + resumeKey + " resumes", true
	case strings.HasPrefix(p.Say, "waits for you"):
		return "▶ autopilot " + p.Say, true
	}
	return "▶ autopilot: " + p.Say + " · any key takes over", false
}
