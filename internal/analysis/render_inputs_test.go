package analysis

// setRender changes an Env's render inputs as change says (the inputs
// built so far, then changed, are what Render answers from now on).
func setRender(env *Env, change func(*RenderInputs)) {
	r := env.Workspace.Rendering()
	change(&r)
	env.Workspace.Render = Given(r)
}
