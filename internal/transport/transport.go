// Package transport makes the HTTP transports of the clients that talk to
// one host many times at once: the model's endpoint and the Bot API.
package transport

import "net/http"

// MaxIdlePerHost is how many idle connections to its host a transport of
// New keeps for reuse: enough for every model slot of a busy runtime, and
// for a send and a typing indicator per slot beside the poll.
const MaxIdlePerHost = 64

// New returns a transport of its own (so that CloseIdleConnections touches
// only its connections) with net/http's defaults, except that it keeps
// MaxIdlePerHost idle connections per host. net/http keeps 2 and closes
// the rest after each request, so a burst of requests to one host would
// pay a new TCP and TLS handshake for most of them.
func New() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = MaxIdlePerHost
	return t
}
