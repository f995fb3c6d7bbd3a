package model

// anthropicModels are Anthropic's models by the prefix of their names.
//
// TODO(issue 24): the current lineup, their reasoning and prices, each row
// citing the page of Anthropic's documentation it comes from.
var anthropicModels = map[string]Info{
	"claude-3":          {Window: 200_000},
	"claude-3-5":        {Window: 200_000},
	"claude-3-7":        {Window: 200_000},
	"claude-sonnet-4":   {Window: 200_000},
	"claude-opus-4":     {Window: 200_000},
	"claude-haiku-4":    {Window: 200_000},
	"claude-sonnet-4-5": {Window: 200_000},
	"claude-opus-4-1":   {Window: 200_000},
	"claude-opus-4-5":   {Window: 200_000},
	"claude-haiku-4-5":  {Window: 200_000},
}
