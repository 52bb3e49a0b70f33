// fgc-bench-featuregate-loop: upstream cluster-config-operator's FeatureGate loop, run from its own source for
// the side-by-side benchmark (hack/bench/upstream.ts). build.sh copies this file into a checkout of
// openshift/cluster-config-operator as cmd/fgc-bench-featuregate-loop and builds it with that tree's vendor/.
// The payload is read for the self-managed profile only. What runs is upstream's: featuregates.NewFeatureGateController with the shared informers, the library-go
// controller factory (1 min resync), the version recorder and a Kubernetes Event recorder, as starter.go
// wires them. What this file adds: the flags, the payload reading (the same walk as starter.go's
// getFeatureGateMappingFromDisk, which is unexported) and a stand-in for the operator's own Config client
// (library-go's fake operator client: the Config CRD is not on the benchmark's control plane), so upstream's
// figures here are a floor — its real process also runs its other controllers. Never shipped.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/blang/semver/v4"
	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/api/features"
	operatorv1 "github.com/openshift/api/operator/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	"github.com/openshift/cluster-config-operator/pkg/operator/featuregates"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"github.com/openshift/library-go/pkg/operator/status"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster")
	version := flag.String("operator-version", "", "the version this operator renders")
	dir := flag.String("payload-dir", "", "folder of FeatureGate payload manifests")
	namespace := flag.String("namespace", "openshift-config-operator", "namespace of the Events")
	qps := flag.Float64("qps", 0, "client-side rate limit; 0 keeps client-go's default (5, burst 10), which the operator ships with (library-go's controllercmd passes no overrides); negative: none")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	check(err)
	if *qps < 0 {
		cfg.QPS, cfg.Burst = -1, 0
	} else if *qps > 0 {
		cfg.QPS, cfg.Burst = float32(*qps), int(2 * *qps)
	}
	configClient := configclient.NewForConfigOrDie(cfg)
	kubeClient := kubernetes.NewForConfigOrDie(cfg)
	mapping, err := readMapping(*dir, *version)
	check(err)

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	informers := configinformers.NewSharedInformerFactory(configClient, 10*time.Minute)
	recorder := events.NewKubeRecorder(kubeClient.CoreV1().Events(*namespace), "config-operator",
		&corev1.ObjectReference{Kind: "Deployment", Namespace: *namespace, Name: "openshift-config-operator"}, clock.RealClock{})
	operatorClient := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil)
	versions := status.NewVersionGetter()
	versions.SetVersion(featuregates.FeatureVersionName, "")
	controller := featuregates.NewFeatureGateController(mapping, operatorClient, *version, configClient.ConfigV1(),
		informers.Config().V1().FeatureGates(), informers.Config().V1().ClusterVersions(), versions, recorder)
	informers.Start(ctx.Done())
	go controller.Run(ctx, 1)
	<-ctx.Done()
}

// readMapping: the feature sets of `version` for the self-managed profile, read as starter.go reads them.
func readMapping(dir, version string) (map[configv1.FeatureSet]*features.FeatureGateEnabledDisabled, error) {
	const profile = "include.release.openshift.io/self-managed-high-availability"
	v, err := semver.ParseTolerant(version)
	if err != nil {
		return nil, err
	}
	ret := map[configv1.FeatureSet]*features.FeatureGateEnabledDisabled{}
	err = filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" && ext != ".json" {
			return nil // the benchmark's payload folder has a README; upstream's folder holds manifests only
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fg, err := resourceread.ReadFeatureGateV1(content)
		if err != nil {
			return fmt.Errorf("%q is not a featuregate: %v", path, err)
		}
		if fg.Annotations[profile] != "false-except-for-the-config-operator" {
			return nil
		}
		// A comma-separated list of majors (the benchmark payload's form; the "-N" exclusions are not needed here).
		if m, ok := fg.Annotations["release.openshift.io/major-version"]; ok && !slices.Contains(strings.Split(m, ","), fmt.Sprint(v.Major)) {
			return nil
		}
		gates := &features.FeatureGateEnabledDisabled{}
		for _, s := range fg.Status.FeatureGates {
			if s.Version != version && s.Version != "" {
				continue
			}
			for _, g := range s.Enabled {
				gates.Enabled = append(gates.Enabled, features.FeatureGateDescription{FeatureGateAttributes: configv1.FeatureGateAttributes{Name: g.Name}})
			}
			for _, g := range s.Disabled {
				gates.Disabled = append(gates.Disabled, features.FeatureGateDescription{FeatureGateAttributes: configv1.FeatureGateAttributes{Name: g.Name}})
			}
			break
		}
		ret[fg.Spec.FeatureSet] = gates
		return nil
	})
	return ret, err
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
