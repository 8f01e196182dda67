package runtime

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/admin"
)

// WebhookServer takes Telegram's webhook requests on AIRI_WEBHOOK_ADDR,
// at the path of TELEGRAM_WEBHOOK_URL. Every replica runs one; a load
// balancer in front spreads the requests.
type WebhookServer struct {
	ln   net.Listener
	path string
	log  *zap.Logger
}

// ListenWebhook opens the webhook's listener on addr for the path of
// webhookURL, so that a taken address fails the start at once.
func ListenWebhook(webhookURL, addr string, log *zap.Logger) (*WebhookServer, error) {
	u, err := url.Parse(webhookURL)
	if err != nil {
		return nil, fmt.Errorf("TELEGRAM_WEBHOOK_URL: %w", err)
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("webhook listener on AIRI_WEBHOOK_ADDR=%s: %w", addr, err)
	}
	return &WebhookServer{ln: ln, path: path, log: log.Named("webhook")}, nil
}

// Serve answers webhook requests with h until ctx ends; requests to other
// paths get 404.
func (s *WebhookServer) Serve(ctx context.Context, h http.Handler) error {
	mux := http.NewServeMux()
	mux.Handle(s.path, h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.log.Info("taking Telegram webhook requests", zap.String("addr", s.ln.Addr().String()), zap.String("path", s.path))
	if err := admin.ServeUntil(ctx, srv, s.ln, 5*time.Second); err != nil {
		return fmt.Errorf("webhook server: %w", err)
	}
	return nil
}

// Close closes the listener, for a server that never served.
func (s *WebhookServer) Close() error { return s.ln.Close() }
