package prompts

import (
	"strconv"
	"text/template/parse"
	"time"
)

// Fields is a set of the parts of Data a template reads. A template's
// output is a function of the fields it reads (its functions have no
// state), so a caller may reuse a rendering for data whose fields in the
// set are equal: Data.AppendKey writes them.
type Fields uint32

// The parts of Data a template can read. Bot and Channel count by field;
// the others count whole (a template that ranges over Memory reads all of
// it).
const (
	FieldBotName Fields = 1 << iota
	FieldLanguage
	FieldPlatform
	FieldChannelID
	FieldChannelTitle
	FieldChannelGroup
	FieldChannelMembers
	FieldAttention
	FieldNotice
	FieldMemory
	FieldNow
	FieldIncoming
	FieldRemaining
	FieldActions
	FieldEarlier
	FieldUnread
	FieldReactions
	FieldTools

	// FieldAll is every part: what a template reads when its body does
	// something the analysis does not follow (passes the whole data to a
	// function, calls another template).
	FieldAll Fields = 1<<iota - 1
)

// subField returns the field of Bot or Channel (top) named name.
func subField(top, name string) (Fields, bool) {
	switch top + "." + name {
	case "Bot.Name":
		return FieldBotName, true
	case "Channel.ID":
		return FieldChannelID, true
	case "Channel.Title":
		return FieldChannelTitle, true
	case "Channel.Group":
		return FieldChannelGroup, true
	case "Channel.Members":
		return FieldChannelMembers, true
	}
	return 0, false
}

// topField returns the field of Data named name, Bot and Channel whole.
func topField(name string) (Fields, bool) {
	switch name {
	case "Bot":
		return FieldBotName, true
	case "Channel":
		return FieldChannelID | FieldChannelTitle | FieldChannelGroup | FieldChannelMembers, true
	case "Language":
		return FieldLanguage, true
	case "Platform":
		return FieldPlatform, true
	case "Attention":
		return FieldAttention, true
	case "Notice":
		return FieldNotice, true
	case "Memory":
		return FieldMemory, true
	case "Now":
		return FieldNow, true
	case "Incoming":
		return FieldIncoming, true
	case "Remaining":
		return FieldRemaining, true
	case "Actions":
		return FieldActions, true
	case "Earlier":
		return FieldEarlier, true
	case "Unread":
		return FieldUnread, true
	case "Reactions":
		return FieldReactions, true
	case "Tools":
		return FieldTools, true
	}
	return 0, false
}

// Uses returns the parts of Data the template's body reads, found from its
// parse tree when it is parsed; FieldAll when the body does something the
// analysis does not follow.
func (t *Template) Uses() Fields { return t.uses }

// usesOf walks a parsed body and returns the fields it reads.
func usesOf(tree *parse.Tree) Fields {
	if tree == nil || tree.Root == nil {
		return 0
	}
	var u uses
	u.list(tree.Root, true)
	return u.f
}

// uses collects fields. root tells whether dot is the data itself: inside
// range and with, dot is derived from the pipeline, whose fields are
// already counted, so what the body reads of it adds nothing.
type uses struct{ f Fields }

func (u *uses) list(l *parse.ListNode, root bool) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		u.node(n, root)
	}
}

func (u *uses) node(n parse.Node, root bool) {
	switch n := n.(type) {
	case *parse.TextNode, *parse.CommentNode, *parse.BreakNode, *parse.ContinueNode:
	case *parse.ActionNode:
		u.pipe(n.Pipe, root)
	case *parse.IfNode:
		u.pipe(n.Pipe, root)
		u.list(n.List, root)
		u.list(n.ElseList, root)
	case *parse.RangeNode:
		u.pipe(n.Pipe, root)
		u.list(n.List, false)
		u.list(n.ElseList, root)
	case *parse.WithNode:
		u.pipe(n.Pipe, root)
		u.list(n.List, false)
		u.list(n.ElseList, root)
	default:
		// A template call, or a node kind added to text/template later.
		u.f = FieldAll
	}
}

func (u *uses) pipe(p *parse.PipeNode, root bool) {
	if p == nil {
		return
	}
	for _, c := range p.Cmds {
		for _, a := range c.Args {
			u.arg(a, root)
		}
	}
}

func (u *uses) arg(a parse.Node, root bool) {
	switch a := a.(type) {
	case *parse.FieldNode:
		if root {
			u.field(a.Ident)
		}
	case *parse.DotNode:
		if root {
			u.f = FieldAll
		}
	case *parse.VariableNode:
		// Only $ is not derived from a pipeline already counted.
		if a.Ident[0] == "$" {
			if len(a.Ident) == 1 {
				u.f = FieldAll
				return
			}
			u.field(a.Ident[1:])
		}
	case *parse.ChainNode:
		u.arg(a.Node, root)
	case *parse.PipeNode:
		u.pipe(a, root)
	case *parse.IdentifierNode, *parse.StringNode, *parse.NumberNode, *parse.BoolNode, *parse.NilNode:
	default:
		u.f = FieldAll
	}
}

// field counts a chain of field names read from the data itself.
func (u *uses) field(ident []string) {
	f, ok := topField(ident[0])
	if ok && len(ident) > 1 && (ident[0] == "Bot" || ident[0] == "Channel") {
		f, ok = subField(ident[0], ident[1])
	}
	if !ok {
		// Not a field of Data: rendering fails, and says where.
		f = FieldAll
	}
	u.f |= f
}

// AppendKey appends to dst the values of d's fields in f, each delimited
// so that different values never write the same bytes. Two Data with equal
// keys for a template's Uses render the same text.
func (d *Data) AppendKey(dst []byte, f Fields) []byte {
	str := func(s string) {
		dst = strconv.AppendInt(dst, int64(len(s)), 10)
		dst = append(dst, ':')
		dst = append(dst, s...)
	}
	num := func(n int) {
		dst = strconv.AppendInt(dst, int64(n), 10)
		dst = append(dst, ';')
	}
	flag := func(b bool) {
		if b {
			dst = append(dst, 't')
		} else {
			dst = append(dst, 'f')
		}
	}
	at := func(t time.Time) {
		// Renderings show the zone, not only the instant, and a time
		// printed whole shows its monotonic reading: String has both.
		str(t.String())
		str(t.Location().String())
	}
	for bit := Fields(1); bit <= FieldTools; bit <<= 1 {
		if f&bit == 0 {
			continue
		}
		num(int(bit))
		switch bit {
		case FieldBotName:
			str(d.Bot.Name)
		case FieldLanguage:
			str(d.Language)
		case FieldPlatform:
			str(d.Platform)
		case FieldChannelID:
			str(d.Channel.ID)
		case FieldChannelTitle:
			str(d.Channel.Title)
		case FieldChannelGroup:
			flag(d.Channel.Group)
		case FieldChannelMembers:
			num(len(d.Channel.Members))
			for _, m := range d.Channel.Members {
				str(m)
			}
		case FieldAttention:
			str(d.Attention)
		case FieldNotice:
			str(d.Notice)
		case FieldTools:
			str(d.Tools)
		case FieldMemory:
			num(len(d.Memory))
			for _, n := range d.Memory {
				str(n.ID)
				str(n.Scope)
				str(n.About)
				str(n.Text)
				flag(n.Shareable)
			}
		case FieldNow:
			at(d.Now)
		case FieldIncoming:
			num(len(d.Incoming))
			for _, m := range d.Incoming {
				str(m.ID)
				str(m.Sender)
				str(m.Name)
				str(m.Content)
				at(m.Time)
				str(m.ReplyTo)
				flag(m.Mentioned)
				flag(m.Self)
				flag(m.Bot)
				num(len(m.Answers))
				for _, a := range m.Answers {
					str(a.Sender)
					str(a.Content)
				}
			}
		case FieldRemaining:
			num(d.Remaining)
		case FieldActions, FieldEarlier:
			list := d.Actions
			if bit == FieldEarlier {
				list = d.Earlier
			}
			num(len(list))
			for _, a := range list {
				str(a.Name)
				str(a.Action)
				flag(a.OK)
				str(a.Result)
				at(a.Time)
			}
		case FieldUnread:
			num(d.Unread.Total)
			num(d.Unread.More)
			num(len(d.Unread.Channels))
			for _, c := range d.Unread.Channels {
				str(c.ID)
				str(c.Title)
				num(c.Count)
				flag(c.Current)
			}
		case FieldReactions:
			num(len(d.Reactions))
			for _, r := range d.Reactions {
				str(r.Sender)
				flag(r.Bot)
				str(r.Emoji)
				str(r.MessageID)
				flag(r.Removed)
			}
		}
	}
	return dst
}
