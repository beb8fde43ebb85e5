package v1

func RegisterValidations(scheme *runtime.Scheme) error {
	scheme.AddValidationFunc((*examplev1.Widget)(nil), nil)
	return nil
}
