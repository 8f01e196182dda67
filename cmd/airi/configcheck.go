package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/adapters/satori"
	"github.com/airi-go/airi/adapters/telegram"
	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/planner/openai"
	"github.com/airi-go/airi/planner/parse"
	"github.com/airi-go/airi/prompts"
	"github.com/airi-go/airi/runtime"
	"github.com/airi-go/airi/state"
)

// check is one line of `airi config check`.
type check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Warning marks a check that passed with something to look at.
	Warning bool `json:"warning,omitempty"`
}

// modelProbe is the outcome of the test call.
type modelProbe struct {
	LatencyMS int64  `json:"latencyMs"`
	JSONMode  string `json:"jsonMode"`
	// JSONModeAccepted is false when the endpoint refused the request with
	// the configured JSON mode and accepted it without.
	JSONModeAccepted bool   `json:"jsonModeAccepted"`
	Action           string `json:"action,omitempty"`
}

func (a *app) cmdConfigCheck(ctx context.Context, args []string) int {
	fs := a.flags("config check")
	var cf commonFlags
	cf.register(fs)
	asJSON := fs.Bool("json", false, "print the checks as JSON")
	noModel := fs.Bool("no-model", false, "skip the test call to the model")
	if code, ok := a.parseFlags(fs, args); !ok {
		return code
	}
	cfg, err := loadConfig(cf.configFile, a.getenv)
	if err != nil {
		fmt.Fprintf(a.stderr, "airi config check: invalid configuration:\n%v\n", err)
		return exitUsage
	}
	log, err := newLogger(a.stderr, "error", cfg.LogFormat)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi config check:", err)
		return exitUsage
	}
	checks, probe := runChecks(ctx, cfg, log, !*noModel)
	// A variable that looks like a setting but names none is most likely
	// a typo of one, whose value is then not applied.
	if unknown := a.unknownVariables(); len(unknown) > 0 {
		checks[0] = check{Name: "settings", Detail: strings.Join(unknown, "; ")}
	}
	code := exitOK
	for _, c := range checks {
		if !c.OK {
			code = exitFailure
		}
	}
	if *asJSON {
		_ = json.NewEncoder(a.stdout).Encode(struct {
			OK     bool        `json:"ok"`
			Checks []check     `json:"checks"`
			Model  *modelProbe `json:"model,omitempty"`
		}{code == exitOK, checks, probe})
		return code
	}
	for _, c := range checks {
		mark := "ok  "
		switch {
		case !c.OK:
			mark = "FAIL"
		case c.Warning:
			mark = "warn"
		}
		fmt.Fprintf(a.stdout, "%s %-10s %s\n", mark, c.Name, c.Detail)
	}
	return code
}

// settingPrefixes begin the names of the settings: a variable that
// begins with one and names no setting is reported.
var settingPrefixes = []string{"AIRI_", "LLM_", "TELEGRAM_", "SATORI_"}

// testVariablePrefix begins the variables the tests read (AIRI_TEST_FLOOD,
// AIRI_TEST_DATABASE_URL), which are not settings.
const testVariablePrefix = "AIRI_TEST_"

// unknownVariables describes each variable of the environment that looks
// like a setting but names none, with the closest setting, sorted.
func (a *app) unknownVariables() []string {
	if a.environ == nil {
		return nil
	}
	var out []string
	for _, kv := range a.environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(settingPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) ||
			strings.HasPrefix(name, testVariablePrefix) {
			continue
		}
		// Variables are case-sensitive: airi_history is not read.
		if slices.ContainsFunc(settingsTable, func(s setting) bool { return s.name == name }) {
			continue
		}
		out = append(out, name+" is not a setting"+didYouMean(name, settingNames(false)))
	}
	slices.Sort(out)
	return out
}

// runChecks validates what the settings point at; with callModel it makes
// one small request to the model.
func runChecks(ctx context.Context, cfg config, log *zap.Logger, callModel bool) ([]check, *modelProbe) {
	var out []check
	add := func(name string, err error, detail string) {
		if err != nil {
			out = append(out, check{Name: name, Detail: err.Error()})
			return
		}
		out = append(out, check{Name: name, OK: true, Detail: detail})
	}
	out = append(out, check{Name: "settings", OK: true, Detail: "every setting is valid"})

	modelErr := cfg.requireModel()
	var model *openai.Client
	if modelErr == nil {
		model, modelErr = newModel(cfg, log, func(c *openai.Config) { c.MaxAttempts = 1 })
	}
	add("model", modelErr, fmt.Sprintf("%s at %s (JSON mode %s)", cfg.LLMModel, cfg.LLMBaseURL, cfg.LLMJSONMode))

	adapters, err := buildAdapters(cfg, nil, log)
	switch {
	case err != nil:
		add("adapters", err, "")
	case len(adapters) == 0:
		out = append(out, check{Name: "adapters", OK: true, Warning: true, Detail: "none configured: airi run needs TELEGRAM_BOT_TOKEN or SATORI_WS_URL (airi chat needs none)"})
	default:
		names := ""
		for i, ad := range adapters {
			if i > 0 {
				names += ", "
			}
			names += ad.Name()
		}
		add("adapters", nil, names)
		for _, ad := range adapters {
			out = append(out, checkIdentity(ctx, ad))
		}
	}
	add("admin", checkAdminAddr(cfg.AdminAddr, cfg.AdminToken), "admin server on "+cfg.AdminAddr)

	src, err := prompts.Load(cfg.PromptsDir, log)
	detail := "embedded templates"
	if cfg.PromptsDir != "" {
		detail = "templates in " + cfg.PromptsDir + " over the embedded ones"
	}
	if err == nil && src == nil {
		err = errors.New("no prompts loaded")
	}
	add("prompts", err, detail)

	dbDetail, err := runtime.CheckDatabase(ctx, cfg.storeConfig(), log)
	add("database", err, dbDetail)

	if !callModel || model == nil {
		return out, nil
	}
	probe, err := probeModel(ctx, cfg, model, log)
	if err != nil {
		add("model call", err, "")
		return out, probe
	}
	c := check{Name: "model call", OK: true, Detail: fmt.Sprintf("answered in %d ms", probe.LatencyMS)}
	switch {
	case probe.JSONMode == openai.JSONModeOff:
		c.Detail += "; JSON mode off"
	case probe.JSONModeAccepted:
		c.Detail += "; JSON mode " + probe.JSONMode + " accepted"
	default:
		c.OK = false
		c.Detail += fmt.Sprintf("; the endpoint refuses LLM_JSON_MODE=%s but answers without it: set LLM_JSON_MODE=off", probe.JSONMode)
	}
	if probe.Action != "" {
		c.Detail += "; the answer parsed as " + probe.Action
	}
	out = append(out, c)
	return out, probe
}

// identityTimeout bounds one identity call of config check, so a server
// that accepts the connection and never answers fails the check.
const identityTimeout = 15 * time.Second

// checkIdentity asks the platform who the bot is, as airi run does when it
// connects: Telegram's getMe and Satori's login. A refused token or an
// unreachable server fails the check, naming the settings to look at.
func checkIdentity(ctx context.Context, ad runtime.Adapter) check {
	ctx, cancel := context.WithTimeout(ctx, identityTimeout)
	defer cancel()
	c := check{Name: ad.Name()}
	var err error
	var settings string
	switch a := ad.Sender.(type) {
	case *telegram.Adapter:
		settings = "TELEGRAM_BOT_TOKEN"
		if err = a.Connect(ctx); err == nil {
			_, username := a.Me()
			c.Detail = "getMe answered @" + username
		} else if !errors.Is(err, telegram.ErrUnauthorized) {
			settings = "TELEGRAM_BOT_TOKEN and TELEGRAM_API_BASE_URL"
		}
	case *satori.Adapter:
		settings = "SATORI_TOKEN and SATORI_WS_URL"
		if err = a.Check(ctx); err == nil {
			c.Detail = "logged in and out"
		}
	default:
		c.OK, c.Warning, c.Detail = true, true, "no identity check for this adapter"
		return c
	}
	if err != nil {
		c.Detail = fmt.Sprintf("check %s: %v", settings, err)
		return c
	}
	c.OK = true
	return c
}

// probeModel makes one small request. When the endpoint refuses it with a
// JSON mode on, it asks once more without, to tell the mode apart from the
// other settings.
func probeModel(ctx context.Context, cfg config, model *openai.Client, log *zap.Logger) (*modelProbe, error) {
	req := planner.Request{ChannelID: "config-check", Messages: []state.ChatMessage{
		{Role: "system", Content: `This is a connection check. Answer with exactly this JSON object and nothing else: {"action": "continue"}`},
		{Role: "user", Content: "ping"},
	}}
	cctx, cancel := context.WithTimeout(ctx, cfg.LLMTimeout+5*time.Second)
	defer cancel()
	probe := &modelProbe{JSONMode: cfg.LLMJSONMode, JSONModeAccepted: true}
	resp, err := model.Complete(cctx, req)
	if err != nil && cfg.LLMJSONMode != openai.JSONModeOff && errors.Is(err, planner.ErrPermanent) {
		off := cfg
		off.LLMJSONMode = openai.JSONModeOff
		plain, perr := newModel(off, log, func(c *openai.Config) { c.MaxAttempts = 1 })
		if perr == nil {
			if r2, err2 := plain.Complete(cctx, req); err2 == nil {
				probe.JSONModeAccepted = false
				resp, err = r2, nil
			}
		}
	}
	if err != nil {
		return nil, err
	}
	probe.LatencyMS = resp.Latency.Milliseconds()
	reg, rerr := actions.NewBuiltinRegistry(actions.Handlers{})
	if rerr == nil {
		if res, perr := parse.New(reg).Parse(resp.Content); perr == nil {
			probe.Action = res.Action.Name
		}
	}
	return probe, nil
}
