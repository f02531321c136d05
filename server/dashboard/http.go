package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed web
var web embed.FS

// Register adds the API and the page to mux: GET /api/v1/rooms, GET
// /api/v1/rooms/{name}, GET /api/v1/rooms/{name}/{doc} (a room's
// document, such as its desync report) and /dashboard/, to which / and
// /dashboard redirect.
func (d *Dashboard) Register(mux *http.ServeMux) {
	mux.Handle("GET /api/v1/rooms", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		b, _ := d.encoded("", d.list)
		writeJSON(w, b)
	}))
	mux.Handle("GET /api/v1/rooms/{name}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		b, ok := d.encoded("room/"+name, func() (any, bool) { return d.room(name) })
		if !ok {
			http.Error(w, "no such room", http.StatusNotFound)
			return
		}
		writeJSON(w, b)
	}))
	mux.Handle("GET /api/v1/rooms/{name}/{doc}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := d.document(r.PathValue("name"), r.PathValue("doc"))
		if !ok {
			http.Error(w, "no such document", http.StatusNotFound)
			return
		}
		writeJSON(w, b)
	}))
	page, _ := fs.Sub(web, "web")
	mux.Handle("GET /dashboard/", http.StripPrefix("/dashboard/", http.FileServerFS(page)))
	mux.Handle("GET /dashboard", http.RedirectHandler("/dashboard/", http.StatusMovedPermanently))
	mux.Handle("GET /{$}", http.RedirectHandler("/dashboard/", http.StatusFound)) // the admin address's root
}

// writeJSON writes an encoded answer.
func writeJSON(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}
