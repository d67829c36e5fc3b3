//! The project model: `.sln`, `.slnx`, `.slnf` and `.fsproj` discovery, compile order and
//! project references.
