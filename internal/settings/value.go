package settings

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Value is a setting's value as given: text from the environment, or a
// node of the YAML file, decoded by its YAML type (a number, a boolean, a
// list, a map) rather than printed back into text.
type Value struct {
	text string
	// node is the value in the YAML file; nil for the environment.
	node *yaml.Node
}

// FromText is a value given as text, as the environment gives it.
func FromText(s string) Value { return Value{text: s} }

// FromYAML is a value given as a node of a YAML file.
func FromYAML(n *yaml.Node) Value { return Value{node: n} }

// YAML is the node the value was given as, or nil for text.
func (v Value) YAML() *yaml.Node { return v.node }

// String is the value as the user wrote it, for error messages.
func (v Value) String() string {
	switch {
	case v.node == nil:
		return v.text
	case v.node.Kind == yaml.ScalarNode:
		return v.node.Value
	}
	n := *v.node
	n.Style = yaml.FlowStyle
	b, err := yaml.Marshal(&n)
	if err != nil {
		return "(" + v.node.ShortTag() + ")"
	}
	return strings.TrimSpace(string(b))
}

// Scalar is the text of a single value: the environment's text, or a
// YAML scalar's literal text (so `0123` stays 0123, not 83). ok is false
// for a YAML list or map.
func (v Value) Scalar() (string, bool) {
	if v.node == nil {
		return v.text, true
	}
	if v.node.Kind != yaml.ScalarNode {
		return "", false
	}
	return v.node.Value, true
}

// Typed reports whether v is a YAML scalar of one of the YAML type tags
// ("!!int", "!!bool", "!!float"), to be decoded as that type. A quoted
// YAML string is read as the environment's text would be.
func (v Value) Typed(tags ...string) bool {
	return v.node != nil && v.node.Kind == yaml.ScalarNode && slices.Contains(tags, v.node.ShortTag())
}

// List is the items of a list setting: a YAML sequence, or a comma list.
func (v Value) List() ([]string, bool) {
	if v.node != nil && v.node.Kind == yaml.SequenceNode {
		out := make([]string, 0, len(v.node.Content))
		for _, item := range v.node.Content {
			if item.Kind != yaml.ScalarNode {
				return nil, false
			}
			out = append(out, item.Value)
		}
		return out, true
	}
	s, ok := v.Scalar()
	if !ok {
		return nil, false
	}
	return strings.Split(s, ","), true
}
