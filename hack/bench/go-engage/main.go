// Benchmark-only: what client-go spends taking guests over — the floor hosted mode's take-over is measured against
// (npm run bench -- engage-floor). Each guest kubeconfig of a JSON array gets its own REST config and dynamic client,
// informers of FeatureGate/cluster, ClusterVersion/version and ClusterOperator/config-operator (each by name, as the
// coordinator watches them) waited until synced, then the requests the coordinator makes of a guest it takes over:
// the FeatureGate created and its status written, the ClusterOperator created and its status written, one read of
// the guest kube-apiserver's /metrics. At most --in-flight guests at once. Prints one JSON line on stdout:
// {"guests", "failed", "cpuS", "wallS", "firstError"}, the CPU from getrusage(RUSAGE_SELF) over the engagements.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// What the driver gives: the guests' kubeconfigs and the two objects written to each.
type input struct {
	Kubeconfigs     []string               `json:"kubeconfigs"`
	FeatureGate     map[string]interface{} `json:"featureGate"`
	ClusterOperator map[string]interface{} `json:"clusterOperator"`
}

type result struct {
	Guests     int     `json:"guests"`
	Failed     int     `json:"failed"`
	CPUS       float64 `json:"cpuS"`
	WallS      float64 `json:"wallS"`
	FirstError string  `json:"firstError,omitempty"`
}

var watched = []struct {
	gvr  schema.GroupVersionResource
	name string
}{
	{schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "featuregates"}, "cluster"},
	{schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions"}, "version"},
	{schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators"}, "config-operator"},
}

func main() {
	in := flag.String("input", "", "JSON file: {kubeconfigs, featureGate, clusterOperator}")
	inFlight := flag.Int("in-flight", 16, "guests engaged at once")
	flag.Parse()
	if err := run(*in, *inFlight); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func cpuSeconds() float64 {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return float64(u.Utime.Sec+u.Stime.Sec) + float64(u.Utime.Usec+u.Stime.Usec)/1e6
}

func run(path string, inFlight int) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ctx := context.Background()
	cpu0, t0 := cpuSeconds(), time.Now()
	var mu sync.Mutex
	res := result{Guests: len(in.Kubeconfigs)}
	places := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	for _, text := range in.Kubeconfigs {
		wg.Add(1)
		places <- struct{}{}
		go func(text string) {
			defer wg.Done()
			defer func() { <-places }()
			if err := engage(ctx, text, &in); err != nil {
				mu.Lock()
				res.Failed++
				if res.FirstError == "" {
					res.FirstError = err.Error()
				}
				mu.Unlock()
			}
		}(text)
	}
	wg.Wait()
	res.CPUS, res.WallS = cpuSeconds()-cpu0, time.Since(t0).Seconds()
	return json.NewEncoder(os.Stdout).Encode(res)
}

// engage takes one guest over; its informers keep watching (as an engaged guest's do) until the process exits.
func engage(ctx context.Context, text string, in *input) error {
	cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(text))
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 1000, 1000
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var synced []cache.InformerSynced
	for _, w := range watched {
		name := w.name
		f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, "", func(o *metav1.ListOptions) {
			o.FieldSelector = "metadata.name=" + name
		})
		synced = append(synced, f.ForResource(w.gvr).Informer().HasSynced)
		f.Start(ctx.Done())
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return fmt.Errorf("caches did not sync")
	}
	if err := createWithStatus(ctx, dc.Resource(watched[0].gvr), in.FeatureGate); err != nil {
		return fmt.Errorf("FeatureGate: %w", err)
	}
	if err := createWithStatus(ctx, dc.Resource(watched[2].gvr), in.ClusterOperator); err != nil {
		return fmt.Errorf("ClusterOperator: %w", err)
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	_, err = kc.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	return err
}

// createWithStatus creates the object (its status dropped by the API, as a status subresource's is) and writes its status.
func createWithStatus(ctx context.Context, rc dynamic.ResourceInterface, object map[string]interface{}) error {
	created, err := rc.Create(ctx, &unstructured.Unstructured{Object: runtime.DeepCopyJSON(object)}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	created.Object["status"] = runtime.DeepCopyJSONValue(object["status"])
	_, err = rc.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	return err
}
