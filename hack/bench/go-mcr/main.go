// Benchmark-only: one peer of multicluster-runtime's sharded coordinator with its default timings, over the
// namespace provider (each namespace of the API server is one "cluster"), reconciling ConfigMaps. Every reconcile
// prints one JSON line on stdout — {"atMs", "peer", "cluster"} — so hack/bench/mcr-takeover.ts can tell when a peer
// took over the clusters of a peer killed with SIGKILL. Flags: --kubeconfig FILE, --peer ID (the peer's Lease
// identity; several peers on one host need distinct ones).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/peers"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

type line struct {
	AtMs    int64  `json:"atMs"`
	Peer    string `json:"peer"`
	Cluster string `json:"cluster"`
}

func main() {
	// --kubeconfig is controller-runtime's own flag (its config loader registers it).
	peer := flag.String("peer", "", "this peer's identity")
	flag.Parse()
	if err := run(*peer); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(peer string) error {
	ctrl.SetLogger(logr.Discard())
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	host, err := cluster.New(cfg)
	if err != nil {
		return err
	}
	kube, err := client.New(cfg, client.Options{Scheme: host.GetScheme()})
	if err != nil {
		return err
	}
	// Defaults everywhere but the peer's identity (the registry's own: hostname, the same for every process here).
	coordinator := sharded.New(kube, logr.Discard(),
		sharded.WithPeerRegistry(peers.NewLeaseRegistry(kube, "kube-system", "mcr-peer", peer, 1, logr.Discard())))
	mgr, err := mcmanager.New(cfg, namespace.New(host), manager.Options{
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	}, mcmanager.WithCoordinator(coordinator))
	if err != nil {
		return err
	}
	var out sync.Mutex
	enc := json.NewEncoder(os.Stdout)
	err = mcbuilder.ControllerManagedBy(mgr).Named("takeover-probe").For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			out.Lock()
			defer out.Unlock()
			return ctrl.Result{}, enc.Encode(line{AtMs: time.Now().UnixMilli(), Peer: peer, Cluster: req.ClusterName.String()})
		}))
	if err != nil {
		return err
	}
	ctx := ctrl.SetupSignalHandler()
	errs := make(chan error, 2)
	go func() { errs <- host.Start(ctx) }()
	go func() { errs <- mgr.Start(ctx) }()
	select {
	case err := <-errs:
		return err
	case <-ctx.Done():
		return nil
	}
}
