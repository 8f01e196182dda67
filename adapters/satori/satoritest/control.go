package satoritest

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// control mounts the control API used by other processes:
//
//	POST /_control/messages       body: Message (JSON)  → {"sn": n}
//	POST /_control/updates        body: Message, as edited → {"sn": n}
//	POST /_control/deletions      body: {"channelId", "guildId", "id", "login"} → {"sn": n}
//	GET  /_control/sent           → [Sent]
//	GET  /_control/identifies     → [Identify]
//	POST /_control/drop           drops every event stream connection
//	POST /_control/fail-sends?n=1&status=500&body=...
//	POST /_control/pongs?stop=true|false
//	POST /_control/files?name=N&type=T, GET /_control/files (file.go)
func (s *Server) control(mux *http.ServeMux) {
	mux.HandleFunc("POST /_control/messages", func(w http.ResponseWriter, r *http.Request) {
		var m Message
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, "body must be a JSON message: "+err.Error(), http.StatusBadRequest)
			return
		}
		if m.ChannelID == "" || m.UserID == "" {
			http.Error(w, "channelId and userId are required", http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]int64{"sn": s.PushMessage(m)})
	})
	s.controlChanges(mux)
	mux.HandleFunc("GET /_control/sent", func(w http.ResponseWriter, r *http.Request) {
		sent := s.Sent()
		if sent == nil {
			sent = []Sent{}
		}
		writeJSON(w, sent)
	})
	mux.HandleFunc("GET /_control/identifies", func(w http.ResponseWriter, r *http.Request) {
		ids := s.Identifies()
		if ids == nil {
			ids = []Identify{}
		}
		writeJSON(w, ids)
	})
	mux.HandleFunc("POST /_control/drop", func(w http.ResponseWriter, r *http.Request) {
		s.DropConnections()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /_control/fail-sends", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		n, err1 := strconv.Atoi(q.Get("n"))
		status, err2 := strconv.Atoi(q.Get("status"))
		if err1 != nil || err2 != nil || n < 0 || status < 400 || status > 599 {
			http.Error(w, "want n=<count>&status=<4xx|5xx>", http.StatusBadRequest)
			return
		}
		s.FailSends(n, status, q.Get("body"))
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /_control/pongs", func(w http.ResponseWriter, r *http.Request) {
		s.StopPongs(r.URL.Query().Get("stop") == "true")
		w.WriteHeader(http.StatusNoContent)
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
