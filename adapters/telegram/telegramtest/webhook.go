package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// SecretHeader carries a webhook's secret_token on every delivery.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// webhook is the registration made by setWebhook.
type webhook struct {
	URL      string
	Secret   string
	MaxConns int

	lastErrDate int64
	lastErr     string
}

// Delivery is one attempt to post an update to the webhook.
type Delivery struct {
	UpdateID int `json:"update_id"`
	// Status is the HTTP status the webhook answered (0: no answer).
	Status int `json:"status"`
}

// WebhookInfo is what getWebhookInfo reports.
type WebhookInfo struct {
	URL                string `json:"url"`
	HasCustomCert      bool   `json:"has_custom_certificate"`
	PendingUpdateCount int    `json:"pending_update_count"`
	MaxConnections     int    `json:"max_connections,omitempty"`
	LastErrorDate      int64  `json:"last_error_date,omitempty"`
	LastErrorMessage   string `json:"last_error_message,omitempty"`
}

var secretRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)

// setWebhook registers (or, with an empty url, removes) the webhook. Like
// the Bot API it wants secret_token of 1–256 characters A-Z, a-z, 0-9, _
// and -. Unlike it, the fake delivers only to loopback hosts, over http
// or https, since tests hold no public certificate.
func (s *Server) setWebhook(p params) (int, any, string) {
	raw := p.str("url")
	if raw == "" {
		s.dropWebhook(p.str("drop_pending_updates") == "true")
		return http.StatusOK, true, ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return http.StatusBadRequest, nil, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook"
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return http.StatusBadRequest, nil, "Bad Request: bad webhook: the fake delivers to loopback addresses only"
	}
	secret := p.str("secret_token")
	if secret != "" && !secretRe.MatchString(secret) {
		return http.StatusBadRequest, nil, "Bad Request: secret token contains unallowed characters"
	}
	conns := int(p.int("max_connections"))
	if conns <= 0 {
		conns = 40
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.str("drop_pending_updates") == "true" {
		s.updates = nil
	}
	s.setAllowedUpdates(p)
	s.hook = webhook{URL: raw, Secret: secret, MaxConns: min(conns, 100)}
	s.startDeliveryLocked()
	s.notify()
	return http.StatusOK, true, ""
}

// dropWebhook removes the webhook (deleteWebhook, or setWebhook with an
// empty url).
func (s *Server) dropWebhook(dropPending bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = webhook{}
	if dropPending {
		s.updates = nil
	}
	s.notify()
}

func (s *Server) webhookInfo() WebhookInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return WebhookInfo{URL: s.hook.URL, PendingUpdateCount: len(s.updates), MaxConnections: s.hook.MaxConns,
		LastErrorDate: s.hook.lastErrDate, LastErrorMessage: s.hook.lastErr}
}

// Webhook returns the registered webhook URL and secret ("" when none).
func (s *Server) Webhook() (url, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hook.URL, s.hook.Secret
}

// WaitWebhook waits until a webhook is registered: setWebhook counts as
// called when it arrives, and registers once its parameters are checked.
func (s *Server) WaitWebhook(ctx context.Context) error {
	return s.waitFor(ctx, func() bool { return s.hook.URL != "" })
}

// Deliveries returns every attempt to post an update to the webhook, in
// the order the answers came.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Delivery(nil), s.deliveries...)
}

// WaitDelivered waits until no update is pending (every one was posted
// to the webhook and answered with 2xx).
func (s *Server) WaitDelivered(ctx context.Context) error {
	return s.waitFor(ctx, func() bool { return s.hook.URL != "" && len(s.updates) == 0 })
}

// startDeliveryLocked starts the delivery loop once; callers hold mu.
func (s *Server) startDeliveryLocked() {
	if s.deliverCancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.deliverCancel = cancel
	s.deliverWG.Add(1)
	go s.deliverLoop(ctx)
}

// stopDelivery ends the delivery loop and waits for posts in flight.
func (s *Server) stopDelivery() {
	s.mu.Lock()
	cancel := s.deliverCancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.deliverWG.Wait()
}

// deliverLoop posts pending updates to the webhook, oldest first, up to
// max_connections at once; an update answered with anything but 2xx is
// posted again after WebhookRetry, as Telegram retries.
func (s *Server) deliverLoop(ctx context.Context) {
	defer s.deliverWG.Done()
	client := &http.Client{Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	for {
		s.mu.Lock()
		var (
			next    *Update
			hook    = s.hook
			wakeAt  time.Time
			now     = time.Now()
			running = len(s.inflight)
		)
		if hook.URL != "" && running < hook.MaxConns {
			for i := range s.updates {
				u := &s.updates[i]
				if s.inflight[u.UpdateID] {
					continue
				}
				if at := s.retryAt[u.UpdateID]; at.After(now) {
					if wakeAt.IsZero() || at.Before(wakeAt) {
						wakeAt = at
					}
					continue
				}
				cp := *u
				next = &cp
				break
			}
		}
		if next != nil {
			s.inflight[next.UpdateID] = true
			s.mu.Unlock()
			s.deliverWG.Add(1)
			go func() {
				defer s.deliverWG.Done()
				s.post(ctx, client, hook, *next)
			}()
			continue
		}
		changed := s.changed
		s.mu.Unlock()
		var timer *time.Timer
		var fire <-chan time.Time
		if !wakeAt.IsZero() {
			timer = time.NewTimer(time.Until(wakeAt))
			fire = timer.C
		}
		select {
		case <-ctx.Done():
		case <-changed:
		case <-fire:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// post delivers one update and records the outcome.
func (s *Server) post(ctx context.Context, client *http.Client, hook webhook, u Update) {
	status := 0
	errText := ""
	body, _ := json.Marshal(u)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		if hook.Secret != "" {
			req.Header.Set(SecretHeader, hook.Secret)
		}
		var resp *http.Response
		resp, err = client.Do(req)
		if err == nil {
			status = resp.StatusCode
			_ = resp.Body.Close()
		}
	}
	switch {
	case err != nil:
		errText = "Connection refused"
		if strings.Contains(err.Error(), "timeout") {
			errText = "Read timeout expired"
		}
	case status < 200 || status > 299:
		errText = fmt.Sprintf("Wrong response from the webhook: %d %s", status, http.StatusText(status))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.inflight, u.UpdateID)
	if ctx.Err() != nil {
		return
	}
	s.deliveries = append(s.deliveries, Delivery{UpdateID: u.UpdateID, Status: status})
	if errText != "" {
		s.hook.lastErr, s.hook.lastErrDate = errText, s.opts.Now().Unix()
		s.retryAt[u.UpdateID] = time.Now().Add(s.opts.WebhookRetry)
		s.notify()
		return
	}
	delete(s.retryAt, u.UpdateID)
	for i := range s.updates {
		if s.updates[i].UpdateID == u.UpdateID {
			s.updates = append(s.updates[:i:i], s.updates[i+1:]...)
			break
		}
	}
	s.confirmed = s.nextUpd
	if len(s.updates) > 0 {
		s.confirmed = s.updates[0].UpdateID
	}
	s.notify()
}
