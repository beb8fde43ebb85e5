package v1

func SetDefaults_WidgetSpec(obj *WidgetSpec) {
	if obj.Defaulted == "" {
		obj.Defaulted = "d"
	}
}
