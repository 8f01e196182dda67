package main

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

// webhookServer takes Telegram's webhook requests on AIRI_WEBHOOK_ADDR,
// at the path of TELEGRAM_WEBHOOK_URL. Every replica runs one; a load
// balancer in front spreads the requests.
type webhookServer struct {
	ln   net.Listener
	path string
	log  *zap.Logger
}

// listenWebhook opens the webhook's listener, so that a taken address
// fails the start at once.
func listenWebhook(cfg config, log *zap.Logger) (*webhookServer, error) {
	u, err := url.Parse(cfg.TelegramWebhookURL)
	if err != nil {
		return nil, fmt.Errorf("TELEGRAM_WEBHOOK_URL: %w", err)
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	ln, err := net.Listen("tcp", cfg.WebhookAddr)
	if err != nil {
		return nil, fmt.Errorf("webhook listener on AIRI_WEBHOOK_ADDR=%s: %w", cfg.WebhookAddr, err)
	}
	return &webhookServer{ln: ln, path: path, log: log.Named("webhook")}, nil
}

// serve answers webhook requests with h until ctx ends; requests to other
// paths get 404.
func (s *webhookServer) serve(ctx context.Context, h http.Handler) error {
	mux := http.NewServeMux()
	mux.Handle(s.path, h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.log.Info("taking Telegram webhook requests", zap.String("addr", s.ln.Addr().String()), zap.String("path", s.path))
	if err := admin.ServeUntil(ctx, srv, s.ln, 5*time.Second); err != nil {
		return fmt.Errorf("webhook server: %w", err)
	}
	return nil
}
