// A webhook receiver: checks each delivery's signature with the Standard Webhooks Go library,
// then handles it once.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

type envelope struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

func main() {
	// The signing secret of the flow's HTTP-send block (whsec_…).
	webhook, err := standardwebhooks.NewWebhook(os.Getenv("WEBHOOK_SECRET"))
	if err != nil {
		log.Fatal(err)
	}
	// Delivery ids already handled. Keep them in your database: a delivery may arrive more than once.
	var mu sync.Mutex
	seen := map[string]bool{}

	http.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		// The body exactly as received: the signature covers these bytes, not a re-serialised copy.
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 16<<20))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		if err := webhook.Verify(body, r.Header); err != nil {
			http.Error(w, "invalid signature", http.StatusBadRequest)
			return
		}
		var event envelope
		if err := json.Unmarshal(body, &event); err != nil {
			http.Error(w, "not an event", http.StatusBadRequest)
			return
		}
		deliveryID := r.Header.Get("webhook-id")
		mu.Lock()
		first := !seen[deliveryID]
		seen[deliveryID] = true
		mu.Unlock()
		if first {
			fmt.Println(deliveryID, event.Type, event.ID)
		}
		// Answer 2xx quickly; do slow work after answering.
		w.WriteHeader(http.StatusNoContent)
	})

	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	listener, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %d\n", listener.Addr().(*net.TCPAddr).Port)
	log.Fatal(http.Serve(listener, nil))
}
