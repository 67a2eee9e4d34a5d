"""PowerPoint reports of jobs (NNC 1.20's pptx report and more), without Qt."""
