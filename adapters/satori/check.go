package satori

import (
	"context"
	"fmt"

	"github.com/coder/websocket"
)

// Check logs in to the Satori server once, as Run does, and logs out: it
// reports an unreachable server, a refused token or a server that never
// says READY, for `airi config check`. It delivers nothing and stores no
// cursor.
func (a *Adapter) Check(ctx context.Context) error {
	defer a.http.CloseIdleConnections()
	dialCtx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	defer cancel()
	conn, resp, err := websocket.Dial(dialCtx, a.cfg.WSURL, &websocket.DialOptions{HTTPClient: a.http})
	if err != nil {
		if resp != nil {
			return fmt.Errorf("satori: connect %s: http %d: %w", a.cfg.WSURL, resp.StatusCode, err)
		}
		return fmt.Errorf("satori: connect %s: %w", a.cfg.WSURL, err)
	}
	defer conn.CloseNow()
	if err := a.write(dialCtx, conn, opIdentify, identifyBody{Token: a.cfg.Token}); err != nil {
		return fmt.Errorf("satori: identify: %w", err)
	}
	for {
		p, err := a.read(dialCtx, conn)
		if err != nil {
			if s := websocket.CloseStatus(err); s != -1 {
				return fmt.Errorf("satori: the server closed the connection before READY (status %d %q): check SATORI_TOKEN and the URL path", s, closeReason(err))
			}
			return fmt.Errorf("satori: wait for READY: %w", err)
		}
		if p.Op == opReady {
			_ = conn.Close(websocket.StatusNormalClosure, "checked")
			return nil
		}
	}
}
