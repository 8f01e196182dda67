package parse

import "fmt"

// Finish says how a model's answer ended, as its provider reported it. An
// answer that ends before its JSON does is either the model's own slip (it
// stopped, and forgot a quote or a brace) or the provider cutting it at
// the length limit; only the provider can tell which.
type Finish uint8

const (
	// FinishUnknown is an answer whose end was not reported: a value the
	// end of the text interrupted is read as cut off by the length limit.
	FinishUnknown Finish = iota
	// FinishStop is an answer the model ended itself: an unterminated
	// last value is closed and the action run, with a note.
	FinishStop
	// FinishLength is an answer the provider cut at its length limit (or
	// whose stream broke off): a value the cut interrupted is refused.
	FinishLength
)

// String returns the finish_reason spelling: "stop", "length" or "".
func (f Finish) String() string {
	switch f {
	case FinishStop:
		return "stop"
	case FinishLength:
		return "length"
	}
	return ""
}

// FinishOf maps a provider's finish_reason to a Finish. ended reports that
// the answer ended cleanly (the whole body or stream arrived); one that
// did not is read as cut off whatever the reason says. Reasons other than
// "stop" and "length" (a tool call, a content filter) say nothing about
// the text's end and give FinishUnknown.
func FinishOf(reason string, ended bool) Finish {
	switch {
	case !ended:
		return FinishLength
	case reason == "stop":
		return FinishStop
	case reason == "length":
		return FinishLength
	}
	return FinishUnknown
}

// ParseFinish reads a Finish as `airi parse --finish` and its "finish"
// input key spell it: "stop", "length", or "" for unknown.
func ParseFinish(s string) (Finish, error) {
	switch s {
	case "":
		return FinishUnknown, nil
	case "stop":
		return FinishStop, nil
	case "length":
		return FinishLength, nil
	}
	return FinishUnknown, fmt.Errorf("finish %q: want stop or length", s)
}

// settle adjusts what the end of the text interrupted to how the answer
// ended: when the model stopped itself, a number or literal at the end
// is whole.
func (r *run) settle(ext extent) extent {
	if r.finish == FinishStop && ext.cutBare {
		ext.dropLast, ext.cutBare = false, false
	}
	return ext
}

// endCut applies the end of a cut text to its repaired value v. A key the
// text ended in or after is dropped whatever the finish: its value was
// never begun, so the members before it are whole. Otherwise, when the
// model stopped itself the closed value stands with a note; when it may
// have been cut the interrupted member is marked, which refuses the action.
func (r *run) endCut(v *jval, ext extent) {
	if ext.cutKey {
		if key, ok := dropPartialKey(v, ext); ok {
			r.note("partial key %q at the end of the answer dropped", key)
			if r.finish == FinishStop {
				return
			}
			r.truncated = true
			return
		}
	}
	if r.finish == FinishStop {
		switch {
		case ext.cutString:
			r.note("unterminated string at the end of the answer closed")
		case ext.depth > 0:
			r.note("%d unclosed bracket(s) at the end of the answer closed", ext.depth)
		}
		return
	}
	r.truncated = true
	applyCut(v, ext)
}

// dropPartialKey removes the last member of the object the text ended in
// when it holds no value (the repair gives a key without one null).
func dropPartialKey(v *jval, ext extent) (string, bool) {
	cur := v
	for d := 1; d < ext.depth; d++ {
		if (cur.kind != jObj && cur.kind != jArr) || len(cur.obj) == 0 {
			return "", false
		}
		cur = &cur.obj[len(cur.obj)-1].val
	}
	if cur.kind != jObj || len(cur.obj) == 0 {
		return "", false
	}
	last := cur.obj[len(cur.obj)-1]
	if last.val.kind != jNull {
		return "", false
	}
	cur.obj = cur.obj[:len(cur.obj)-1]
	return last.key, true
}
