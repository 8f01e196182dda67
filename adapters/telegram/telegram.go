// Package telegram connects the runtime to Telegram through the Bot API:
// long polling with getUpdates in the adapter's own loop (an update is
// confirmed only after the runtime stored it), sending with sendMessage in
// Telegram HTML, and the typing indicator.
//
// It uses github.com/mymmrac/telego for the Bot API types and methods but
// none of its update loops (they confirm updates before they are handled
// and hand them to goroutines); telego's transport is replaced by a
// net/http caller that keeps the token out of errors and tells whether a
// failed request had gone out.
package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mymmrac/telego"
	ta "github.com/mymmrac/telego/telegoapi"
	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/internal/backoff"
	"github.com/airi-go/airi/internal/transport"
)

// Name is the adapter's name, the platform of the channels it reports.
const Name = "telegram"

// DefaultAPIBaseURL is the official Bot API server.
const DefaultAPIBaseURL = "https://api.telegram.org"

// Config configures the adapter. Zero values take the defaults.
type Config struct {
	// Token is the bot token from BotFather (TELEGRAM_BOT_TOKEN).
	Token string
	// APIBaseURL is the Bot API server [DefaultAPIBaseURL]; a local Bot API
	// server's URL (TELEGRAM_API_BASE_URL) works the same.
	APIBaseURL string
	// PollTimeout is the long-poll timeout of getUpdates [30s]; Telegram
	// counts it in whole seconds, so it is rounded up to at least 1s.
	PollTimeout time.Duration
	// HTTPTimeout bounds every other request, and is added to PollTimeout
	// for getUpdates [15s].
	HTTPTimeout time.Duration
	// MaxRetryWait is the longest flood-control wait (429 retry_after) a
	// send accepts before it gives up without sending [60s].
	MaxRetryWait time.Duration
	// WebhookURL, when set, makes Run register it with setWebhook instead
	// of polling (TELEGRAM_WEBHOOK_URL); the updates then come to the
	// handler Webhook returns.
	WebhookURL string
	// WebhookSecret is the secret token Telegram sends with every webhook
	// request (TELEGRAM_WEBHOOK_SECRET); required with WebhookURL.
	WebhookSecret string
	// MediaMaxBytes is the largest photo size an incoming photo is
	// recorded with: of the sizes Telegram offers, the largest that fits
	// [DefaultMediaMaxBytes].
	MediaMaxBytes int64
	// HTTPClient replaces the adapter's own client. Leave its Timeout zero:
	// every request gets its deadline from PollTimeout and HTTPTimeout.
	HTTPClient *http.Client
}

// ErrUnauthorized is returned by Run when the Bot API refuses the token.
var ErrUnauthorized = errors.New("TELEGRAM_BOT_TOKEN was refused by the Bot API")

// Adapter is a Telegram bot reached through the Bot API.
type Adapter struct {
	cfg     Config
	cursors adapters.Cursors
	log     *zap.Logger
	bot     *telego.Bot
	call    *caller
	ownHTTP *http.Transport // closed when Run returns, if the adapter made it

	// wait pauses for d or until ctx ends; tests replace it to observe
	// flood-control waits without spending them.
	wait func(ctx context.Context, d time.Duration) error

	ready     chan struct{}
	readyOnce sync.Once
	// link is up while polls succeed.
	link adapters.Link

	mu      sync.Mutex
	me      telego.User
	members map[int64][]string  // display names seen per chat, newest last
	topics  map[topicKey]string // names of the forum topics seen
	// msgTopics is the topic of each forum message seen lately.
	msgTopics map[msgKey]int

	// failing is the update whose delivery failed last, and how many
	// times in a row (only Poll's goroutine uses it).
	failing struct{ id, n int }
}

// New checks the configuration and makes an adapter; it does not connect.
func New(cfg Config, cursors adapters.Cursors, logger *zap.Logger) (*Adapter, error) {
	if strings.TrimSpace(cfg.Token) == "" {
		return nil, errors.New("telegram: TELEGRAM_BOT_TOKEN is empty")
	}
	if cfg.APIBaseURL == "" {
		cfg.APIBaseURL = DefaultAPIBaseURL
	}
	cfg.APIBaseURL = strings.TrimRight(cfg.APIBaseURL, "/")
	if !strings.HasPrefix(cfg.APIBaseURL, "http://") && !strings.HasPrefix(cfg.APIBaseURL, "https://") {
		return nil, fmt.Errorf("telegram: TELEGRAM_API_BASE_URL %q is not an http(s) URL", cfg.APIBaseURL)
	}
	if cfg.WebhookURL != "" && cfg.WebhookSecret == "" {
		return nil, errors.New("telegram: a webhook needs a secret token (TELEGRAM_WEBHOOK_SECRET)")
	}
	if cfg.PollTimeout <= 0 {
		cfg.PollTimeout = 30 * time.Second
	}
	if cfg.HTTPTimeout <= 0 {
		cfg.HTTPTimeout = 15 * time.Second
	}
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = time.Minute
	}
	if cfg.MediaMaxBytes <= 0 {
		cfg.MediaMaxBytes = DefaultMediaMaxBytes
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	a := &Adapter{
		cfg:     cfg,
		cursors: cursors,
		log:     logger.Named(Name),
		wait:    backoff.Sleep,
		ready:   make(chan struct{}),
		members: make(map[int64][]string),
		topics:  make(map[topicKey]string),
	}
	client := cfg.HTTPClient
	if client == nil {
		// Every request goes to one host, several at once when many chats
		// are answered together.
		a.ownHTTP = transport.New()
		client = &http.Client{Transport: a.ownHTTP}
	}
	a.call = &caller{client: client, token: cfg.Token}
	bot, err := telego.NewBot(cfg.Token,
		telego.WithAPIServer(cfg.APIBaseURL),
		telego.WithAPICaller(a.call),
		telego.WithDiscardLogger(),
	)
	if err != nil {
		if errors.Is(err, telego.ErrInvalidToken) {
			return nil, errors.New("telegram: TELEGRAM_BOT_TOKEN does not look like a bot token (digits, a colon, 35 characters)")
		}
		return nil, fmt.Errorf("telegram: %s", a.call.redact(err.Error()))
	}
	a.bot = bot
	return a, nil
}

// Name returns "telegram".
func (a *Adapter) Name() string { return Name }

// Health returns nil while the Bot API answers the polls, otherwise why
// not: not connected yet, or the error of the last poll.
func (a *Adapter) Health() error {
	if err := a.link.Err(); err != nil {
		return fmt.Errorf("telegram: %w", err)
	}
	return nil
}

// Ready is closed once Run has connected and knows the bot's identity.
func (a *Adapter) Ready() <-chan struct{} { return a.ready }

// Me returns the bot's identity from getMe (zero before Ready).
func (a *Adapter) Me() (id int64, username string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.me.ID, a.me.Username
}

// Run connects (getMe; a refused token or an unreachable server fails at
// once), then polls for updates and delivers them one by one until ctx
// ends, when it returns nil. An update is confirmed to Telegram (by the
// next getUpdates offset) only after Deliver stored it.
//
// With a WebhookURL, Run registers the webhook instead and waits for ctx
// to end; the updates come to the handler Webhook returns.
func (a *Adapter) Run(ctx context.Context, inbox adapters.Inbox) error {
	if a.ownHTTP != nil {
		defer a.ownHTTP.CloseIdleConnections()
	}
	if a.cfg.WebhookURL != "" {
		return a.runWebhook(ctx)
	}
	if err := a.Connect(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		a.link.Down(err)
		return err
	}
	offset, err := a.loadOffset(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	failures := 0
	for ctx.Err() == nil {
		next, err := a.Poll(ctx, inbox, offset)
		offset = next
		if err == nil {
			if failures > 0 {
				a.log.Info("telegram polling recovered", zap.Int("failed_polls", failures))
			}
			failures = 0
			continue
		}
		if ctx.Err() != nil {
			break
		}
		a.link.Down(err)
		if fatal := a.fatal(err); fatal != nil {
			return fatal
		}
		failures++
		wait := pollWait(failures, err)
		if failures == 1 {
			a.log.Warn("telegram polling failed; retrying (repeats are logged at debug level until it recovers)", zap.Error(err), zap.Duration("in", wait))
		} else {
			a.log.Debug("telegram polling failed again", zap.Int("failures", failures), zap.Error(err), zap.Duration("in", wait))
		}
		if a.wait(ctx, wait) != nil {
			break
		}
	}
	return nil
}

// Connect calls getMe to learn the bot's identity and closes Ready. Run
// calls it first; tests driving Poll step by step call it themselves. A
// refused token gives an error wrapping ErrUnauthorized.
func (a *Adapter) Connect(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	defer cancel()
	me, err := a.bot.GetMe(cctx)
	if err != nil {
		var apiErr *ta.Error
		if errors.As(err, &apiErr) && (apiErr.ErrorCode == http.StatusUnauthorized || apiErr.ErrorCode == http.StatusNotFound) {
			return fmt.Errorf("telegram: %w (%d %s)", ErrUnauthorized, apiErr.ErrorCode, apiErr.Description)
		}
		return fmt.Errorf("telegram: reach the Bot API at %s: %s", a.cfg.APIBaseURL, a.call.redact(errText(err)))
	}
	a.mu.Lock()
	a.me = *me
	a.mu.Unlock()
	a.log.Info("telegram bot connected", zap.Int64("id", me.ID), zap.String("username", me.Username),
		zap.Bool("reads_all_group_messages", me.CanReadAllGroupMessages))
	if !me.CanReadAllGroupMessages {
		a.log.Info("group privacy mode is on: in groups the bot sees only commands, mentions and replies to it")
	}
	a.link.Up()
	a.readyOnce.Do(func() { close(a.ready) })
	return nil
}

// errText is the transport's error without telego's wrapping.
func errText(err error) string {
	var te *transportError
	if errors.As(err, &te) {
		return te.Error()
	}
	return err.Error()
}

func (a *Adapter) cursorKey() string {
	id, _ := a.Me()
	return "telegram:" + strconv.FormatInt(id, 10) + ":offset"
}

func (a *Adapter) loadOffset(ctx context.Context) (int, error) {
	if a.cursors == nil {
		return 0, nil
	}
	v, err := a.cursors.Cursor(ctx, a.cursorKey())
	if err != nil {
		return 0, fmt.Errorf("telegram: load offset: %w", err)
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		a.log.Warn("ignoring an unreadable stored offset", zap.String("offset", v))
		return 0, nil
	}
	return n, nil
}

// Poll is one step of the receive loop: one getUpdates from offset, the
// updates delivered (see deliverAll), the new offset stored. It returns
// the offset for the next call: past the updates delivered, never past one
// whose Deliver failed (that update is fetched again).
func (a *Adapter) Poll(ctx context.Context, inbox adapters.Inbox, offset int) (int, error) {
	secs := int((a.cfg.PollTimeout + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	pctx, cancel := context.WithTimeout(ctx, time.Duration(secs)*time.Second+a.cfg.HTTPTimeout)
	defer cancel()
	updates, err := a.getUpdates(pctx, &telego.GetUpdatesParams{
		Offset:         offset,
		Timeout:        secs,
		AllowedUpdates: allowedUpdates,
	})
	if err != nil {
		return offset, fmt.Errorf("telegram getUpdates: %w", err)
	}
	a.link.Up()
	start := offset
	next, err := a.deliverAll(ctx, inbox, offset, updates)
	a.saveOffset(ctx, start, next)
	return next, err
}

// MaxChatDeliveries bounds the chats of one getUpdates answer whose
// updates are delivered at once.
const MaxChatDeliveries = 32

// deliverAll delivers the updates of one getUpdates answer: those of one
// chat one after another, in order, and different chats at the same time,
// so that a burst across many chats is stored in a few shared commits
// instead of one each. A chat stops at its first failed delivery, and the
// offset it returns stops before the first update not delivered, so that
// update and those after it are fetched again; the updates of other chats
// among them come back as duplicates, which the store drops. Unreadable
// updates are skipped and confirmed: fetching one again cannot make it
// readable, and it would hold back every update after it.
func (a *Adapter) deliverAll(ctx context.Context, inbox adapters.Inbox, offset int, updates []rawUpdate) (int, error) {
	done := make([]bool, len(updates))
	errs := make([]error, len(updates))
	var order []int64
	chats := map[int64][]int{}
	for i, u := range updates {
		switch {
		case u.err == nil && u.id < offset:
			done[i] = true
		case u.err != nil:
			if u.id < 0 || u.id >= offset {
				a.skipUnreadable(u)
			}
			done[i] = true
		default:
			chat := chatOf(u.update)
			if _, seen := chats[chat]; !seen {
				order = append(order, chat)
			}
			chats[chat] = append(chats[chat], i)
		}
	}
	var g errgroup.Group
	g.SetLimit(MaxChatDeliveries)
	for _, chat := range order {
		g.Go(func() error {
			for _, i := range chats[chat] {
				if errs[i] = a.handle(ctx, inbox, updates[i].update); errs[i] != nil {
					return nil
				}
				done[i] = true
			}
			return nil
		})
	}
	_ = g.Wait() // the outcome of each update is in done and errs
	delivered := false
	for i := range updates {
		delivered = delivered || (done[i] && errs[i] == nil && updates[i].err == nil && updates[i].id >= offset)
	}
	for i, u := range updates {
		if !done[i] && !a.undeliverable(ctx, u, errs[i], delivered) {
			return offset, errs[i]
		}
		if u.id >= offset {
			offset = u.id + 1
		}
	}
	return offset, nil
}

// MaxUpdateAttempts is how many polls in a row may fail to deliver one
// update, while updates of other chats are delivered, before it is
// skipped.
const MaxUpdateAttempts = 3

// undeliverable reports whether update u, whose delivery failed with err,
// is skipped: it failed MaxUpdateAttempts times in a row while others
// were delivered (so the store takes writes, and refuses this one alone).
// A skipped update is logged and recorded as a cursor with its reason,
// and confirmed, so that the offset moves past it. An update that fails
// while nothing else is delivered (the database is down) is retried for
// as long as it takes.
func (a *Adapter) undeliverable(ctx context.Context, u rawUpdate, err error, othersDelivered bool) bool {
	if a.failing.id != u.id {
		a.failing.id, a.failing.n = u.id, 0
	}
	if !othersDelivered {
		return false
	}
	a.failing.n++
	if a.failing.n < MaxUpdateAttempts {
		return false
	}
	a.log.Error("skipping an update that cannot be stored", zap.Int("update", u.id), zap.Int("attempts", a.failing.n), zap.Error(err))
	if a.cursors != nil {
		bot, _ := a.Me()
		key := "telegram:" + strconv.FormatInt(bot, 10) + ":skipped:" + strconv.Itoa(u.id)
		if serr := a.cursors.SetCursor(ctx, key, errText(err)); serr != nil {
			a.log.Warn("record a skipped update", zap.Int("update", u.id), zap.Error(serr))
		}
	}
	a.failing.id, a.failing.n = 0, 0
	return true
}

// chatOf is the chat an update belongs to (0 for updates of other kinds).
func chatOf(u telego.Update) int64 {
	switch {
	case u.Message != nil:
		return u.Message.Chat.ID
	case u.EditedMessage != nil:
		return u.EditedMessage.Chat.ID
	case u.MessageReaction != nil:
		return u.MessageReaction.Chat.ID
	}
	return 0
}

func (a *Adapter) saveOffset(ctx context.Context, old, offset int) {
	if a.cursors == nil || offset == old {
		return
	}
	// A lost cursor costs nothing but duplicates the store drops: the
	// server itself forgets confirmed updates.
	if err := a.cursors.SetCursor(ctx, a.cursorKey(), strconv.Itoa(offset)); err != nil && ctx.Err() == nil {
		a.log.Warn("store telegram offset", zap.Error(err))
	}
}

// fatal returns the error Run must stop with, or nil for a retryable one.
func (a *Adapter) fatal(err error) error {
	var apiErr *ta.Error
	if !errors.As(err, &apiErr) {
		return nil
	}
	switch {
	case apiErr.ErrorCode == http.StatusUnauthorized:
		return fmt.Errorf("telegram: %w while polling (%s)", ErrUnauthorized, apiErr.Description)
	case apiErr.ErrorCode == http.StatusConflict && strings.Contains(strings.ToLower(apiErr.Description), "webhook"):
		return errors.New("telegram: a webhook is set for this bot; long polling needs it removed (call deleteWebhook)")
	}
	return nil
}

// pollWait is the wait after the nth failed poll in a row: the server's
// retry_after when it gave one, 5s when another process polls with this
// token, otherwise 500ms doubling up to 30s.
func pollWait(n int, err error) time.Duration {
	var apiErr *ta.Error
	if errors.As(err, &apiErr) && apiErr.Parameters != nil && apiErr.Parameters.RetryAfter > 0 {
		return time.Duration(apiErr.Parameters.RetryAfter) * time.Second
	}
	if errors.As(err, &apiErr) && apiErr.ErrorCode == http.StatusConflict {
		// Another process is polling with this token.
		return 5 * time.Second
	}
	return backoff.Policy{Min: 500 * time.Millisecond, Max: 30 * time.Second}.Delay(n, 0)
}
