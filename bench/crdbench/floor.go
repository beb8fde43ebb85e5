package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/operation"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/bench/workload"
)

// The library floor: what the libraries crd-lsp is built on cost for a
// workload when nothing of crd-lsp runs — sigs.k8s.io/yaml decoding every
// CRD and document, apiextensions-apiserver building what the API server
// builds to serve each version (internal schema, OpenAPI validator,
// structural schema, CEL programs), and each document validated by a
// fresh kube-openapi validator and the CEL rules, as the API server does
// on create. crd-lsp does all of this and more (pruning, defaulting,
// metadata, list types, positions), so its CPU stays above this figure
// unless it uses them otherwise than the API server does (it keeps
// kube-openapi's per-field validators between objects) or skips their
// work (a cache of decoded CRDs across runs).

var floorSummary = regexp.MustCompile(`(?m)^floor: (\d+) documents, (\d+) errors$`)

// floorTool runs `crdbench floor-child` as the third checker of check
// (50-CRD scenarios: it builds every CRD it is given, used or not).
// With asAPIServer it is "floor-api": every library step of the API
// server's create, not only schema and CEL validation (apiServerSteps).
func floorTool(self string, m *workload.Manifest, asAPIServer bool) tool {
	name, args := "floor", []string{self, "floor-child", "-schemas", m.Schemas50}
	if asAPIServer {
		name, args = "floor-api", append(args, "-as-apiserver")
	}
	return tool{
		name: name,
		argv: func(sc scenario) []string { return append(append([]string(nil), args...), sc.path) },
		verify: func(sc scenario, r run) error {
			s := floorSummary.FindStringSubmatch(r.stdout)
			if s == nil || r.exit != 0 {
				return fmt.Errorf("no summary (exit %d) in %q", r.exit, tail(r.stdout))
			}
			if s[1] != strconv.Itoa(sc.docs) || s[2] != "0" {
				return fmt.Errorf("not clean: %s", s[0])
			}
			return nil
		},
	}
}

type floorVersion struct {
	openapi    validation.SchemaValidator
	structural *structuralschema.Structural
	cel        *cel.Validator
	namespaced bool
}

// floorChild is the library floor run as a child process.
func floorChild(args []string) error {
	fl := flag.NewFlagSet("floor-child", flag.ExitOnError)
	schemas := fl.String("schemas", "", "folder of CRD YAML files")
	asAPIServer := fl.Bool("as-apiserver", false, "run every step the API server's create runs on a custom resource (decoding with ObjectMeta coercion, pruning, defaulting; ObjectMeta, embedded-resource and list-type validation), not only the schema and CEL")
	_ = fl.Parse(args)
	if fl.NArg() != 1 {
		return fmt.Errorf("want one file or folder of documents")
	}
	versions := map[string]floorVersion{}
	paths, err := filepath.Glob(filepath.Join(*schemas, "*.yaml"))
	if err != nil {
		return err
	}
	start := time.Now()
	crds := make([]*apiextensionsv1.CustomResourceDefinition, len(paths))
	for i, f := range paths {
		text, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		crds[i] = &apiextensionsv1.CustomResourceDefinition{}
		if err := sigsyaml.Unmarshal(text, crds[i]); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	decoded := time.Now()
	for i, crd := range crds {
		f := paths[i]
		for _, v := range crd.Spec.Versions {
			var internal apiextensions.CustomResourceValidation
			if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, &internal, nil); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			openapi, _, err := validation.NewSchemaValidator(internal.OpenAPIV3Schema)
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			ss, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			if err := structuraldefaulting.PruneDefaults(ss); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			versions[crd.Spec.Group+"/"+v.Name+"/"+crd.Spec.Names.Kind] = floorVersion{openapi, ss, cel.NewValidator(ss, true, celconfig.PerCallLimit), crd.Spec.Scope == apiextensionsv1.NamespaceScoped}
		}
	}
	built := time.Now()
	docs, errs := 0, 0
	err = filepath.WalkDir(fl.Arg(0), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, part := range bytes.Split(text, []byte("\n---\n")) {
			j, err := sigsyaml.YAMLToJSON(part)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			var obj map[string]any
			if err := utiljson.Unmarshal(j, &obj); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if obj == nil {
				continue
			}
			apiVersion, _ := obj["apiVersion"].(string)
			kind, _ := obj["kind"].(string)
			if !strings.Contains(apiVersion, "/") {
				apiVersion = "/" + apiVersion
			}
			v, ok := versions[apiVersion+"/"+kind]
			if !ok {
				return fmt.Errorf("%s: no CRD for %s %s", path, apiVersion, kind)
			}
			docs++
			if *asAPIServer {
				errs += apiServerSteps(obj, v)
			}
			errs += len(validation.ValidateCustomResource(nil, obj, v.openapi))
			celErrs, _ := v.cel.Validate(context.Background(), nil, v.structural, obj, nil, celconfig.RuntimeCELCostBudget)
			errs += len(celErrs)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Printf("floor: %d documents, %d errors\n", docs, errs)
	fmt.Printf("floor phases (one thread, wall): decode %d CRDs %v, build their versions %v, decode and validate the documents %v\n",
		len(crds), decoded.Sub(start).Round(time.Millisecond), built.Sub(decoded).Round(time.Millisecond), time.Since(built).Round(time.Millisecond))
	return nil
}

// apiServerSteps runs on obj, with the libraries alone, the steps of a
// create that the plain floor leaves out, in the API server's order
// (apiextensions-apiserver v0.37.2: pkg/apiserver/customresource_handler.go
// unstructuredSchemaCoercer.apply and unstructuredDefaulter.Default, then
// pkg/registry/customresource/strategy.go Validate and validator.go):
// ObjectMeta read and coerced, unknown fields pruned, nulls dropped,
// defaults applied; ObjectMeta, embedded resources and list types
// validated. It returns the number of errors found.
func apiServerSteps(obj map[string]any, v floorVersion) int {
	kind, apiVersion := obj["kind"], obj["apiVersion"]
	meta, foundMeta, unknown, err := objectmeta.GetObjectMetaWithOptions(obj, objectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	n := len(unknown)
	if err != nil {
		n++
	}
	n += len(structuralpruning.PruneWithOptions(obj, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}))
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, v.structural)
	ferr, paths := objectmeta.CoerceWithOptions(nil, obj, v.structural, false, objectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil {
		n++
	}
	n += len(paths)
	obj["kind"], obj["apiVersion"] = kind, apiVersion
	if foundMeta && meta != nil {
		_ = objectmeta.SetObjectMeta(obj, meta)
	}
	structuraldefaulting.Default(obj, v.structural)
	if meta == nil {
		meta = &metav1.ObjectMeta{}
	}
	ctx := context.Background()
	n += len(apimachineryvalidation.ValidateObjectMetaDeclaratively(ctx, operation.Create, meta, nil, v.namespaced,
		apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"), utilfeature.DefaultFeatureGate.Enabled(features.DeclarativeValidationBeta)))
	n += len(objectmeta.Validate(ctx, nil, obj, v.structural, false))
	n += len(listtype.ValidateListSetsAndMaps(nil, v.structural, obj))
	return n
}
