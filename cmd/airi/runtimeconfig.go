package main

import (
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/scheduler/budget"
)

// runtime is the bot's part of the configuration; each command adds what
// is its own (keeping to the channels of its adapters, running as one
// replica of several).
func (c config) runtime() runtime.Config {
	return runtime.Config{
		BotName: c.BotName, PromptsDir: c.PromptsDir, Language: c.Language, SendUser: c.SendUser,
		History: c.History, Debounce: c.Debounce, TickInterval: c.TickInterval, MaxIterations: c.MaxIterations,
		ContinueDelay: c.ContinueDelay, SleepMax: c.SleepMax, AnswerTokens: c.LLMMaxTokens, Concurrency: c.Concurrency, Wakes: c.Wakes,
		Interrupt: c.Interrupt == "cancel", PromptMaxTokens: c.PromptMaxTokens, PromptCacheChannels: c.PromptCacheChannels,
		MaxSendChars: c.MaxSendChars, MaxSendParts: c.MaxSendParts, AllowChannels: c.AllowChannels,
		Attention:  c.Attention,
		Budget:     budget.Config{Daily: c.BudgetDay, ChannelDaily: c.ChannelBudgetDay, Channels: c.ChannelBudgets, Location: c.BudgetTZ},
		LogContent: c.LogContent, Admins: c.Admins, TickRetention: c.TickRetention, MessageRetention: c.MessageRetention,
		LeaseTTL: c.LeaseTTL, Turn: c.Turn,
		TZ: c.TZ, ChannelTZ: c.ChannelTZ, ScheduleMax: c.ScheduleMax, ScheduleMaxPerUser: c.ScheduleMaxPerUser,
		Tools: c.Tools, Media: c.Media,
	}
}
