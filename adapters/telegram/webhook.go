package telegram

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/mymmrac/telego"
	ta "github.com/mymmrac/telego/telegoapi"
	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters"
)

// SecretHeader is the header in which Telegram sends a webhook's secret
// token with every update.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// maxUpdateBytes bounds the body of one webhook request.
const maxUpdateBytes = 4 << 20

// Updates remembers which updates were handled, so that an update posted
// twice (Telegram retries a webhook request whose answer it did not get;
// behind a load balancer the retry may reach another replica) is handled
// once. The state store implements it; the adapter finds it on the
// cursors it is given.
type Updates interface {
	// UpdateSeen reports whether MarkUpdate recorded key.
	UpdateSeen(ctx context.Context, key string) (bool, error)
	// MarkUpdate records key as handled.
	MarkUpdate(ctx context.Context, key string) error
}

// runWebhook connects, registers the webhook and waits for ctx to end:
// the updates come through Webhook's handler, not through Run.
func (a *Adapter) runWebhook(ctx context.Context) error {
	if err := a.Connect(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	failures := 0
	for {
		err := a.SetWebhook(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil
		}
		if fatal := a.fatal(err); fatal != nil {
			return fatal
		}
		var apiErr *ta.Error
		if errors.As(err, &apiErr) && apiErr.ErrorCode == http.StatusBadRequest {
			// A URL or secret the Bot API refuses will not get better.
			return fmt.Errorf("telegram: TELEGRAM_WEBHOOK_URL refused: %s", apiErr.Description)
		}
		failures++
		wait := pollWait(failures, err)
		a.log.Warn("telegram setWebhook failed; retrying", zap.Error(err), zap.Duration("in", wait))
		if a.wait(ctx, wait) != nil {
			return nil
		}
	}
	<-ctx.Done()
	return nil
}

// SetWebhook registers the configured webhook URL and secret token with
// the Bot API (setWebhook). Every replica may call it: the registration
// is the same.
func (a *Adapter) SetWebhook(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	defer cancel()
	err := a.bot.SetWebhook(cctx, &telego.SetWebhookParams{
		URL:            a.cfg.WebhookURL,
		SecretToken:    a.cfg.WebhookSecret,
		AllowedUpdates: allowedUpdates,
	})
	if err != nil {
		return fmt.Errorf("telegram setWebhook: %w", err)
	}
	a.log.Info("telegram webhook registered", zap.String("url", a.cfg.WebhookURL))
	return nil
}

// WebhookBodyTimeout bounds the time a webhook request's body may take to
// arrive once its headers did; Telegram sends an update at once.
const WebhookBodyTimeout = 10 * time.Second

// Webhook returns the handler of the webhook's requests, which delivers
// each update to inbox. A request without the configured secret token in
// SecretHeader gets 401 and is not read. An update is answered 200 only
// once it is stored (or was stored before: an update handled once is
// skipped), so Telegram posts it again otherwise; a body that is not an
// update is logged and answered 200, since posting it again would not
// help. Until Run has connected, requests get 503.
func (a *Adapter) Webhook(inbox adapters.Inbox) http.Handler {
	want := sha256.Sum256([]byte(a.cfg.WebhookSecret))
	updates, _ := a.cursors.(Updates)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Hashing first makes the comparison take the same time whatever
		// the length of the header.
		got := sha256.Sum256([]byte(r.Header.Get(SecretHeader)))
		if a.cfg.WebhookSecret == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			a.log.Warn("refused a webhook request without the secret token", zap.String("remote", r.RemoteAddr))
			// The body is never read: the connection is closed after the
			// answer, and the read deadline is now so that the server
			// does not wait for the rest of the body, however slowly it
			// comes, before closing it.
			w.Header().Set("Connection", "close")
			_ = http.NewResponseController(w).SetReadDeadline(time.Now())
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		select {
		case <-a.ready:
		default:
			http.Error(w, "not connected to the Bot API yet", http.StatusServiceUnavailable)
			return
		}
		// A body that trickles in holds a connection and a goroutine:
		// it has WebhookBodyTimeout to arrive in full.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(WebhookBodyTimeout))
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUpdateBytes))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			a.log.Warn("skipping a webhook update over the size limit", zap.Int64("limit", tooBig.Limit))
			w.WriteHeader(http.StatusOK)
			return
		case err != nil:
			return // the connection broke; Telegram posts it again
		}
		var u telego.Update
		if err := json.Unmarshal(body, &u); err != nil || u.UpdateID <= 0 {
			a.log.Warn("skipping a webhook body that is not an update", zap.Int("bytes", len(body)), zap.Error(err))
			w.WriteHeader(http.StatusOK)
			return
		}
		status := a.handleWebhook(r.Context(), inbox, updates, u)
		w.WriteHeader(status)
	})
}

// handleWebhook handles one update unless it was handled before and
// returns the status to answer with.
func (a *Adapter) handleWebhook(ctx context.Context, inbox adapters.Inbox, updates Updates, u telego.Update) int {
	key := a.updateKey(u.UpdateID)
	if updates != nil {
		seen, err := updates.UpdateSeen(ctx, key)
		if err != nil {
			a.log.Warn("look up a webhook update", zap.Int("update", u.UpdateID), zap.Error(err))
			return http.StatusInternalServerError
		}
		if seen {
			a.log.Debug("skipping an update handled before", zap.Int("update", u.UpdateID))
			return http.StatusOK
		}
	}
	if err := a.handle(ctx, inbox, u); err != nil {
		a.log.Warn("webhook update not stored; Telegram will post it again", zap.Int("update", u.UpdateID), zap.Error(err))
		return http.StatusInternalServerError
	}
	if updates != nil {
		// The update is stored; a lost record costs only a second
		// delivery, which the store deduplicates by message id.
		if err := updates.MarkUpdate(ctx, key); err != nil {
			a.log.Warn("record a handled webhook update", zap.Int("update", u.UpdateID), zap.Error(err))
		}
	}
	return http.StatusOK
}

// updateKey names an update of this bot for Updates.
func (a *Adapter) updateKey(id int) string {
	bot, _ := a.Me()
	return "telegram:" + strconv.FormatInt(bot, 10) + ":update:" + strconv.Itoa(id)
}
