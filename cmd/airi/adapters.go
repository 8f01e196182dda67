package main

import (
	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/adapters/console"
	"github.com/airi-go/airi/adapters/satori"
	"github.com/airi-go/airi/adapters/telegram"
	"github.com/airi-go/airi/state"
)

// The adapters depend on the domain only; the wiring checks here that each
// one is what the runtime needs of it.
var (
	_ actions.Sender = (*console.Adapter)(nil)
	_ actions.Sender = (*satori.Adapter)(nil)
	_ actions.Sender = (*telegram.Adapter)(nil)

	_ sender = (*console.Adapter)(nil)
	_ sender = (*satori.Adapter)(nil)
	_ sender = (*telegram.Adapter)(nil)

	_ actions.PartCounter = (*telegram.Adapter)(nil)
	_ actions.PartCounter = (*router)(nil)

	_ adapters.Cursors = state.Store(nil)
)
