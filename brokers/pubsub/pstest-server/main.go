// pstest-server serves the Pub/Sub fake cloud.google.com/go/pubsub/v2/pstest over gRPC on
// -port, for convoy's local runtime, plus a small HTTP control endpoint on -control-port:
//
//	GET  /health                 "ok" once the gRPC server is listening
//	GET  /version                {"pstest":"v2.x.y","go":"go1.x"}
//	POST /fail-publish?topic=projects/p/topics/t[&key=k][&count=1][&code=FAILED_PRECONDITION]
//	                             the next `count` Publish requests for the topic (only those
//	                             carrying ordering key k, if given) fail with gRPC status `code`
//
// Failures go through a pstest Reactor on "Publish", scoped to one topic; pstest's own
// AddPublishResponse needs SetAutoPublishResponse(false), which makes every publish on the
// server wait for a queued response, so it cannot fail just one topic's next publish.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"

	pb "cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type failure struct {
	key   string
	count int
	code  codes.Code
}

// failPublish is the Reactor: it fails the next matching Publish requests of a topic.
type failPublish struct {
	mu      sync.Mutex
	pending map[string][]*failure // by topic
}

func (f *failPublish) React(req interface{}) (bool, interface{}, error) {
	r, ok := req.(*pb.PublishRequest)
	if !ok {
		return false, nil, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, fl := range f.pending[r.Topic] {
		if fl.key != "" && !hasKey(r, fl.key) {
			continue
		}
		if fl.count--; fl.count <= 0 {
			f.pending[r.Topic] = append(f.pending[r.Topic][:i], f.pending[r.Topic][i+1:]...)
		}
		log.Printf("fail-publish: failing a publish of %d message(s) to %s with %s", len(r.Messages), r.Topic, fl.code)
		return true, nil, status.Errorf(fl.code, "convoy: injected publish failure (%s)", fl.code)
	}
	return false, nil, nil
}

func hasKey(r *pb.PublishRequest, key string) bool {
	for _, m := range r.Messages {
		if m.OrderingKey == key {
			return true
		}
	}
	return false
}

func pstestVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "cloud.google.com/go/pubsub/v2" {
				return d.Version
			}
		}
	}
	return "unknown"
}

func main() {
	host := flag.String("host", "127.0.0.1", "address to bind")
	port := flag.Int("port", 8085, "gRPC port")
	controlPort := flag.Int("control-port", 8086, "HTTP control port")
	flag.Parse()

	fp := &failPublish{pending: map[string][]*failure{}}
	srv := pstest.NewServerWithAddress(fmt.Sprintf("%s:%d", *host, *port), pstest.ServerReactorOption{FuncName: "Publish", Reactor: fp})
	defer srv.Close()

	http.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	http.HandleFunc("/version", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"pstest": pstestVersion(), "go": runtime.Version()})
	})
	http.HandleFunc("/fail-publish", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		fl := &failure{key: q.Get("key"), count: 1, code: codes.FailedPrecondition}
		if q.Get("topic") == "" || r.Method != http.MethodPost {
			http.Error(w, "POST /fail-publish?topic=projects/<p>/topics/<t>[&key=][&count=][&code=]", http.StatusBadRequest)
			return
		}
		if c := q.Get("count"); c != "" {
			n, err := strconv.Atoi(c)
			if err != nil || n < 1 {
				http.Error(w, "count: a positive integer", http.StatusBadRequest)
				return
			}
			fl.count = n
		}
		if c := q.Get("code"); c != "" {
			if err := fl.code.UnmarshalJSON([]byte(strconv.Quote(c))); err != nil {
				http.Error(w, "code: a gRPC status name such as FAILED_PRECONDITION", http.StatusBadRequest)
				return
			}
		}
		fp.mu.Lock()
		fp.pending[q.Get("topic")] = append(fp.pending[q.Get("topic")], fl)
		fp.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"topic": q.Get("topic"), "key": fl.key, "count": fl.count, "code": fl.code.String()})
	})
	log.Printf("pstest %s serving gRPC on %s, control on %s:%d", pstestVersion(), srv.Addr, *host, *controlPort)
	log.Fatal(http.ListenAndServe(fmt.Sprintf("%s:%d", *host, *controlPort), nil))
}
