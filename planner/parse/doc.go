// Package parse turns a model's raw answer into one validated action.
//
// Models answer in many broken shapes: code fences, think blocks, prose
// around the JSON, trailing commas, single, typographic or unescaped
// quotes, punctuation typed by CJK input methods, a missing brace or
// quote, JSON encoded as a string, tool-call envelopes, several objects,
// truncated output. A Parser built from an action registry tries a strict
// decode first and repairs only what fails:
//
//	p := parse.New(reg)
//	res, err := p.Parse(raw)
//
// On success, res.Action holds the normalized action (validated against its
// schema), res.Reasoning the model's reasoning kept for the trace, and
// res.Notes what was repaired or dropped. A refusal is an *Error whose text
// is written for the model: it reads it on the next tick and can correct
// itself. Some answers are refused rather than repaired: a value the end of
// the answer cut off (a message cut mid-sentence is never sent) and a
// placeholder copied from the protocol (<id>, <text>). A Parser is safe
// for concurrent use.
package parse
