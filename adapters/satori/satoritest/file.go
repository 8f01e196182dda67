package satoritest

import (
	"io"
	"net/http"
	"strconv"
)

// File is a resource the server serves at /files/<Name>, the way a
// Satori server serves the media of its messages.
type File struct {
	Name string
	Data []byte
	// Type is the Content-Type answered [none].
	Type string
	// NoLength streams the file without a Content-Length.
	NoLength bool
}

// fileState is a served file and who asked for it.
type fileState struct {
	File
	auth []string // the Authorization header of each request
}

// AddFile serves f (replacing a file of the same name) and returns its URL.
func (s *Server) AddFile(f File) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = make(map[string]*fileState)
	}
	s.files[f.Name] = &fileState{File: f}
	return s.FileURL(f.Name)
}

// FileURL is the address of the file name on this server.
func (s *Server) FileURL(name string) string { return s.hs.URL + "/files/" + name }

// FileRequests returns how many requests asked for the file name,
// served or not.
func (s *Server) FileRequests(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fileRequests[name]
}

// FileAuth returns the Authorization header of each request for the
// file name ("" where there was none).
func (s *Server) FileAuth(name string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.files[name]; f != nil {
		return append([]string(nil), f.auth...)
	}
	return nil
}

func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	s.mu.Lock()
	if s.fileRequests == nil {
		s.fileRequests = make(map[string]int)
	}
	s.fileRequests[name]++
	f := s.files[name]
	var file File
	if f != nil {
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		file = f.File
	}
	s.notifyLocked()
	s.mu.Unlock()
	if f == nil {
		http.NotFound(w, r)
		return
	}
	if file.Type != "" {
		w.Header().Set("Content-Type", file.Type)
	} else {
		// Without it, Go's server would sniff one.
		w.Header()["Content-Type"] = nil
	}
	if file.NoLength {
		w.WriteHeader(http.StatusOK)
		// A flush before the body makes the answer chunked.
		_ = http.NewResponseController(w).Flush()
	} else {
		w.Header().Set("Content-Length", strconv.Itoa(len(file.Data)))
	}
	_, _ = w.Write(file.Data)
}

// controlFiles mounts:
//
//	POST /_control/files?name=N&type=T  body: the bytes → {"url": ...}
//	GET  /_control/files                → {name: requests}
func (s *Server) controlFiles(mux *http.ServeMux) {
	mux.HandleFunc("POST /_control/files", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("name") == "" {
			http.Error(w, "want ?name=<file name>", http.StatusBadRequest)
			return
		}
		data, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		if err != nil {
			http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]string{"url": s.AddFile(File{Name: q.Get("name"), Data: data, Type: q.Get("type")})})
	})
	mux.HandleFunc("GET /_control/files", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		out := make(map[string]int, len(s.fileRequests))
		for k, v := range s.fileRequests {
			out[k] = v
		}
		s.mu.Unlock()
		writeJSON(w, out)
	})
}
