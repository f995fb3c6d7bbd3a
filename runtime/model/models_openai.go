package model

// openaiModels are OpenAI's models by the prefix of their names.
//
// TODO(issue 24): the current lineup, their reasoning and prices, each row
// citing the page of OpenAI's documentation it comes from.
var openaiModels = map[string]Info{
	"gpt-4o":        {Window: 128_000},
	"gpt-4o-mini":   {Window: 128_000},
	"gpt-4-turbo":   {Window: 128_000},
	"gpt-4":         {Window: 8_192},
	"gpt-4-32k":     {Window: 32_768},
	"gpt-4.1":       {Window: 1_047_576},
	"gpt-4.1-mini":  {Window: 1_047_576},
	"gpt-4.1-nano":  {Window: 1_047_576},
	"gpt-4.5":       {Window: 128_000},
	"gpt-3.5-turbo": {Window: 16_385},
	"gpt-5":         {Window: 400_000},
	"gpt-5-mini":    {Window: 400_000},
	"gpt-5-nano":    {Window: 400_000},
	"o1":            {Window: 200_000},
	"o1-mini":       {Window: 128_000},
	"o3":            {Window: 200_000},
	"o3-mini":       {Window: 200_000},
	"o4-mini":       {Window: 200_000},
}
