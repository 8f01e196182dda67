package settings

import (
	"errors"

	"go.yaml.in/yaml/v3"
)

// Entry is one key of a YAML map and its value, in file order.
type Entry struct {
	Key   string
	Value *yaml.Node
}

// Null reports whether the entry's key has no value ("key:"), which
// leaves the setting as it was.
func (e Entry) Null() bool { return e.Value.ShortTag() == "!!null" }

// ErrNotMap is returned by DecodeMap for a document that is not a map.
var ErrNotMap = errors.New("not a map")

// DecodeMap parses a YAML document that is a map, and returns its
// entries in file order; an empty document has none. A document of
// another shape is ErrNotMap.
func DecodeMap(raw []byte) ([]Entry, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 {
		return nil, nil
	}
	return Entries(doc.Content[0])
}

// Entries are the entries of a YAML map node in file order; a node of
// another kind is ErrNotMap.
func Entries(n *yaml.Node) ([]Entry, error) {
	if n.Kind != yaml.MappingNode {
		return nil, ErrNotMap
	}
	out := make([]Entry, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, Entry{Key: n.Content[i].Value, Value: n.Content[i+1]})
	}
	return out, nil
}
