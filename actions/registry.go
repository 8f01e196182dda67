package actions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/invopop/jsonschema"
)

// ErrUnknownAction is returned for an action name the registry does not hold.
var ErrUnknownAction = errors.New("unknown action")

// Handler runs one action.
type Handler interface {
	Handle(ctx context.Context, call Call) (Result, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, call Call) (Result, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, call Call) (Result, error) { return f(ctx, call) }

// Call is one action to run on behalf of a channel's tick.
type Call struct {
	// Channel is the id (as the model sees it) of the channel whose loop
	// produced the action.
	Channel string
	Action  Action
	// Watermark is the highest stored message id when the tick's request
	// was built; a send is aborted when newer unread messages exist.
	Watermark int64
	// MayAbort is false once a send of this wake was already aborted, so
	// the next one goes out.
	MayAbort bool
}

// Spec declares one action: its name, its description for the model, the
// Go type of its parameters and its handler (nil when the registry is only
// used to parse and describe actions).
type Spec struct {
	Name        string
	Description string
	// Params is a zero value of the parameter struct, for example SendMessage{}.
	Params  any
	Handler Handler
}

// Entry is an action as the catalog shows it: what `airi actions` prints
// and what the prompt's action catalog is rendered from.
type Entry struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

type registered struct {
	spec   Spec
	typ    reflect.Type
	schema json.RawMessage
	check  *paramCheck
	fields []Field
}

// Field describes one parameter of an action and what its schema asks of
// its value: exactly what the registry checks (Validate, Decode).
type Field struct {
	Name     string // JSON name, e.g. "channelId"
	Type     string // JSON schema type: "string", "integer", "number" or "boolean"
	Required bool
	// MinLength and MaxLength bound a string's length in code points; -1
	// when not bounded.
	MinLength, MaxLength int
	// Pattern is a regular expression a string must match; "" for none.
	Pattern string
	// Enum lists the values allowed, strings as they are and numbers and
	// booleans as JSON writes them; nil allows any.
	Enum []string
	// Minimum, Maximum, ExclusiveMinimum and ExclusiveMaximum bound a
	// number, as JSON number literals; "" when not bounded.
	Minimum, Maximum, ExclusiveMinimum, ExclusiveMaximum string
}

// Registry maps action names to their specs. It is built once at start and
// read concurrently afterwards.
type Registry struct {
	order []string
	byKey map[string]*registered
}

// NewRegistry returns a registry holding specs, in that order.
func NewRegistry(specs ...Spec) (*Registry, error) {
	r := &Registry{byKey: map[string]*registered{}}
	for _, s := range specs {
		if err := r.register(s); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *Registry) register(s Spec) error {
	if s.Name == "" {
		return errors.New("register action: empty name")
	}
	if _, dup := r.byKey[s.Name]; dup {
		return fmt.Errorf("register action %q: already registered", s.Name)
	}
	typ := reflect.TypeOf(s.Params)
	if typ == nil || typ.Kind() != reflect.Struct {
		return fmt.Errorf("register action %q: parameters must be a struct value, got %T", s.Name, s.Params)
	}
	ref := &jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true}
	sch := ref.ReflectFromType(typ)
	sch.Version = ""
	sch.ID = ""
	sch.Description = s.Description
	raw, err := json.Marshal(sch)
	if err != nil {
		return fmt.Errorf("register action %q: encode schema: %w", s.Name, err)
	}
	check, err := newParamCheck(raw, typ)
	if err != nil {
		return fmt.Errorf("register action %q: %w", s.Name, err)
	}
	reg := &registered{spec: s, typ: typ, schema: raw, check: check, fields: check.fields()}
	r.byKey[s.Name] = reg
	r.order = append(r.order, s.Name)
	return nil
}

// Names returns the registered action names in registration order.
func (r *Registry) Names() []string { return append([]string(nil), r.order...) }

// Fields returns the parameters of the named action in declaration order.
func (r *Registry) Fields(name string) []Field {
	reg, ok := r.byKey[name]
	if !ok {
		return nil
	}
	return append([]Field(nil), reg.fields...)
}

// Catalog returns every registered action with its self-contained schema.
func (r *Registry) Catalog() []Entry {
	out := make([]Entry, 0, len(r.order))
	for _, name := range r.order {
		reg := r.byKey[name]
		out = append(out, Entry{Name: name, Description: reg.spec.Description, Schema: reg.schema})
	}
	return out
}

// New returns a pointer to a zero parameter value of the named action.
func (r *Registry) New(name string) (any, error) {
	reg, ok := r.byKey[name]
	if !ok {
		return nil, r.unknown(name)
	}
	return reflect.New(reg.typ).Interface(), nil
}

func (r *Registry) unknown(name string) error {
	known := append([]string(nil), r.order...)
	sort.Strings(known)
	return fmt.Errorf("%w %q: known actions are %s", ErrUnknownAction, name, strings.Join(known, ", "))
}

// Validate checks a decoded parameter object (as produced by encoding/json
// with UseNumber or plain float64 numbers) against the named action's
// schema. The error names each parameter that is wrong and why.
func (r *Registry) Validate(name string, params map[string]any) error {
	reg, ok := r.byKey[name]
	if !ok {
		return r.unknown(name)
	}
	if ps := reg.check.checkMap(params); len(ps) > 0 {
		return schemaError(name, ps)
	}
	return nil
}

func schemaError(name string, ps []problem) error {
	return fmt.Errorf("%s parameters do not match its schema: %s", name, joinProblems(ps))
}

// Decode turns a parameter object into the named action: it checks the
// object against the action's schema, then decodes it into the action's
// parameter type, which refuses what the type cannot hold (a number out of
// its range, or an integer written with a fraction or an exponent).
func (r *Registry) Decode(name string, params json.RawMessage) (Action, error) {
	reg, ok := r.byKey[name]
	if !ok {
		return Action{}, r.unknown(name)
	}
	if len(bytes.TrimSpace(params)) == 0 {
		params = json.RawMessage("{}")
	}
	ps, err := reg.check.checkRaw(params)
	if err != nil {
		return Action{}, fmt.Errorf("decode %s parameters: %w", name, err)
	}
	if len(ps) > 0 {
		return Action{}, schemaError(name, ps)
	}
	v := reflect.New(reg.typ).Interface()
	if err := json.Unmarshal(params, v); err != nil {
		return Action{}, fmt.Errorf("decode %s parameters: %w", name, err)
	}
	return Action{Name: name, Params: v}, nil
}

// Dispatch runs the call's action with its registered handler. Every
// failure, including a panic in the handler, becomes a result the model can
// read; Dispatch itself never fails.
func (r *Registry) Dispatch(ctx context.Context, call Call) (res Result) {
	reg, ok := r.byKey[call.Action.Name]
	if !ok {
		return Result{Next: true, Text: r.unknown(call.Action.Name).Error()}
	}
	if reg.spec.Handler == nil {
		return Result{Next: true, Text: fmt.Sprintf("action %s cannot run here: no handler is configured", call.Action.Name)}
	}
	defer func() {
		if p := recover(); p != nil {
			res = Result{Next: true, Text: fmt.Sprintf("action %s failed inside the runtime: %v", call.Action.Name, p)}
		}
	}()
	call.Action = InChannel(call.Action, call.Channel)
	res, err := reg.spec.Handler.Handle(ctx, call)
	if err != nil {
		return Result{Next: true, Text: fmt.Sprintf("action %s failed: %v", call.Action.Name, err)}
	}
	return res
}

// AnswerSchema returns one JSON schema for a whole answer in the flat form:
// "action" names a registered action and the parameters of every action may
// stand beside it. Providers' JSON-schema modes accept this shape widely;
// the parser still checks the chosen action's own schema.
func (r *Registry) AnswerSchema() json.RawMessage {
	props := map[string]any{"action": map[string]any{"type": "string", "enum": r.Names()}}
	for _, name := range r.order {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(r.byKey[name].schema, &s); err != nil {
			continue
		}
		for k, v := range s.Properties {
			if _, seen := props[k]; !seen {
				props[k] = v
			}
		}
	}
	out, err := json.Marshal(map[string]any{
		"type": "object", "properties": props, "required": []string{"action"}, "additionalProperties": false,
	})
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return out
}
