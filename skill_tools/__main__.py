from skill_tools.cli import main

raise SystemExit(main())
