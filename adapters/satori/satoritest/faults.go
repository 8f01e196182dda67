package satoritest

// Faults the tests inject into the server.

// StopPongs makes the server ignore PINGs (stop=true) or answer them again.
func (s *Server) StopPongs(stop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noPong = stop
}

// FailSends makes the next n message.create calls answer status with body
// (plain text) without creating anything.
func (s *Server) FailSends(n, status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults = append(s.faults, fault{status: status, body: body})
	}
}

// HangSends makes the next n message.create calls record the message and
// then never answer (until the client gives up or the server closes): a
// send whose outcome the client cannot know.
func (s *Server) HangSends(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults = append(s.faults, fault{hang: true})
	}
}

// DropConnections closes every event stream connection abruptly.
func (s *Server) DropConnections() {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.ws.CloseNow()
	}
}
