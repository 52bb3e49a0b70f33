// Command fake-cri serves the CRI (runtime and image services) from k8s.io/cri-client's in-memory fake on a unix
// socket — the runtime kubemark's hollow node gives its kubelet — so that a real kubelet binary runs on a machine
// without a container runtime: it registers its Node, serves /metrics, /configz and /flagz, and runs no container.
// For the tests of `featuregates verify` against real kubelets (test/support/kubelet-node.ts).
//
//	fake-cri unix:///path/to/cri.sock     serve until SIGTERM or SIGINT
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	fakeremote "k8s.io/cri-client/pkg/fake"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fake-cri unix:///path/to/cri.sock")
		os.Exit(2)
	}
	runtime := fakeremote.NewFakeRemoteRuntime()
	if err := runtime.Start(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "fake-cri: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("serving", os.Args[1])
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	runtime.Stop()
}
