package admin

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// UnreachableError is a running bot's admin server that did not answer
// at all: nothing listens at Addr, or the connection failed.
type UnreachableError struct {
	Addr string
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("no bot answers at AIRI_ADMIN_ADDR=%s: %v", e.Addr, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Get asks the admin server of a running bot at addr, as Call does.
func Get(ctx context.Context, addr, token, path string, timeout time.Duration) ([]byte, int, error) {
	return Call(ctx, http.MethodGet, addr, token, path, nil, timeout)
}

// Call sends one request to the admin server of a running bot at addr,
// with the admin token when there is one, and returns the body (at most
// 1 MiB) and the status. An address that listens everywhere is reached
// on loopback.
func Call(ctx context.Context, method, addr, token, path string, body io.Reader, timeout time.Duration) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	host := addr
	if strings.HasPrefix(host, "0.0.0.0:") || strings.HasPrefix(host, "[::]:") || strings.HasPrefix(host, ":") {
		host = "127.0.0.1:" + host[strings.LastIndex(host, ":")+1:]
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+host+path, body)
	if err != nil {
		return nil, 0, fmt.Errorf("admin server %s: %w", addr, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0, &UnreachableError{Addr: addr, Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, resp.StatusCode, fmt.Errorf("admin server %s: %w", addr, err)
	}
	return b, resp.StatusCode, nil
}
