// go-relay: the minimal relay of hack/bench/status-change.ts written on client-go, for the status-latency
// benchmark: informers on ClusterVersion/version and FeatureGate/cluster; on every ClusterVersion event,
// FeatureGate status is pruned to the versions in history with one UpdateStatus. It measures what a Go
// controller's extra hop (one watch delivery, one PUT over client-go's HTTP/2 transport) costs on the same
// control plane as the Node relay and the operator. Benchmark tooling only; never shipped.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

var (
	clusterVersions = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions"}
	featureGates    = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "featuregates"}
)

func informerFor(client dynamic.Interface, gvr schema.GroupVersionResource, name string) cache.SharedIndexInformer {
	return dynamicinformer.NewFilteredDynamicInformer(client, gvr, "", 0, cache.Indexers{}, func(o *metav1.ListOptions) {
		o.FieldSelector = "metadata.name=" + name
	}).Informer()
}

// historyVersions is the set of versions in ClusterVersion status.history.
func historyVersions(cv *unstructured.Unstructured) map[string]bool {
	out := map[string]bool{}
	history, _, _ := unstructured.NestedSlice(cv.Object, "status", "history")
	for _, h := range history {
		if m, ok := h.(map[string]interface{}); ok {
			if v, ok := m["version"].(string); ok {
				out[v] = true
			}
		}
	}
	return out
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	name := flag.String("name", "go", "act only when a pruned version ends in -<name> (several relays run at once)")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cfg.QPS, cfg.Burst = 1000, 1000 // no client-side throttling in a latency benchmark
	client := dynamic.NewForConfigOrDie(cfg)
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()

	cvs := informerFor(client, clusterVersions, "version")
	fgs := informerFor(client, featureGates, "cluster")
	relay := func(obj interface{}) {
		cv, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		item, exists, err := fgs.GetStore().GetByKey("cluster")
		if err != nil || !exists {
			return
		}
		fg := item.(*unstructured.Unstructured)
		entries, _, _ := unstructured.NestedSlice(fg.Object, "status", "featureGates")
		history := historyVersions(cv)
		kept := make([]interface{}, 0, len(entries))
		mine := false
		for _, e := range entries {
			m, ok := e.(map[string]interface{})
			if !ok {
				continue
			}
			if v := fmt.Sprint(m["version"]); history[v] {
				kept = append(kept, e)
			} else if strings.HasSuffix(v, "-"+*name) {
				mine = true
			}
		}
		if len(kept) == 0 || !mine {
			return
		}
		out := fg.DeepCopy()
		if err := unstructured.SetNestedSlice(out.Object, kept, "status", "featureGates"); err != nil {
			return
		}
		_, _ = client.Resource(featureGates).UpdateStatus(ctx, out, metav1.UpdateOptions{})
	}
	_, _ = cvs.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    relay,
		UpdateFunc: func(_, obj interface{}) { relay(obj) },
	})
	go cvs.Run(ctx.Done())
	go fgs.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), cvs.HasSynced, fgs.HasSynced) {
		os.Exit(1)
	}
	fmt.Println("ready")
	<-ctx.Done()
}
