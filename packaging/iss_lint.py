"""A parser and lint for the Inno Setup script, where Inno Setup cannot run (Linux).

    python3 packaging/iss_lint.py [packaging/windows/workbench.iss]   problems, one a line; exit 1 if any

It reads the script as Inno Setup 6 does (preprocessor lines, sections, ``Key=Value`` in
[Setup], ``Param: value; Param: "a ""quoted"" value"`` entries elsewhere, the Pascal [Code]) and
checks what a typo would break without anything saying so until a Windows build: directive,
parameter, flag, root and value-type names against Inno Setup 6's documented lists; every
``{constant}`` and ``{#define}`` known; quotes and braces balanced; every task an entry names
declared in [Tasks]; every function a ``Check:`` calls defined in [Code]; begin/end balanced
in [Code]; source files that are not build outputs present.  It does not compile the script:
``iscc`` on Windows (the workflow's job) is the real test.  Standard library only.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

# Inno Setup 6's [Setup] directives (https://jrsoftware.org/ishelp/, "[Setup] section").
SETUP_DIRECTIVES = set("""
AllowCancelDuringInstall AllowNetworkDrive AllowNoIcons AllowRootDirectory AllowUNCPath
AlwaysRestart AlwaysShowComponentsList AlwaysShowDirOnReadyPage AlwaysShowGroupOnReadyPage
AlwaysUsePersonalGroup AppComments AppContact AppCopyright AppendDefaultDirName
AppendDefaultGroupName AppId AppModifyPath AppMutex AppName AppPublisher AppPublisherURL
AppReadmeFile AppSupportPhone AppSupportURL AppUpdatesURL AppVerName AppVersion
ArchitecturesAllowed ArchitecturesInstallIn64BitMode ASLRCompatible ChangesAssociations
ChangesEnvironment CloseApplications CloseApplicationsFilter Compression CompressionThreads
CreateAppDir CreateUninstallRegKey DefaultDialogFontName DefaultDirName DefaultGroupName
DefaultUserInfoName DefaultUserInfoOrg DefaultUserInfoSerial DEPCompatible DirExistsWarning
DisableDirPage DisableFinishedPage DisableProgramGroupPage DisableReadyMemo DisableReadyPage
DisableStartupPrompt DisableWelcomePage DiskClusterSize DiskSliceSize DiskSpanning
EnableDirDoesntExistWarning Encryption ExtraDiskSpaceRequired FlatComponentsList InfoAfterFile
InfoBeforeFile InternalCompressLevel LanguageDetectionMethod LicenseFile LZMAAlgorithm
LZMABlockSize LZMADictionarySize LZMAMatchFinder LZMANumBlockThreads LZMANumFastBytes
LZMAUseSeparateProcess MergeDuplicateFiles MinVersion MissingMessagesWarning
NotRecognizedMessagesWarning OnlyBelowVersion Output OutputBaseFilename OutputDir
OutputManifestFile Password PrivilegesRequired PrivilegesRequiredOverridesAllowed ReserveBytes
RestartApplications RestartIfNeededByRun SetupArchitecture SetupIconFile SetupLogging SetupMutex
ShowComponentSizes ShowLanguageDialog ShowTasksTreeLines ShowUndisplayableLanguages
SignedUninstaller SignedUninstallerDir SignTool SignToolMinimumTimeBetween SignToolRetryCount
SignToolRetryDelay SignToolRunMinimized SlicesPerDisk SolidCompression SourceDir
TerminalServicesAware TimeStampRounding TimeStampsInUTC TouchDate TouchTime Uninstallable
UninstallDisplayIcon UninstallDisplayName UninstallDisplaySize UninstallFilesDir
UninstallLogMode UninstallRestartComputer UpdateUninstallLogAppName UsedUserAreasWarning
UsePreviousAppDir UsePreviousGroup UsePreviousLanguage UsePreviousPrivileges
UsePreviousSetupType UsePreviousTasks UsePreviousUserInfo UserInfoPage VersionInfoCompany
VersionInfoCopyright VersionInfoDescription VersionInfoOriginalFileName VersionInfoProductName
VersionInfoProductTextVersion VersionInfoProductVersion VersionInfoTextVersion
VersionInfoVersion WindowResizable WizardImageAlphaFormat WizardImageFile WizardImageStretch
WizardResizable WizardSizePercent WizardSmallImageFile WizardStyle
""".split())

_COMMON = {"Languages", "MinVersion", "OnlyBelowVersion", "Check", "BeforeInstall", "AfterInstall"}
#: per section: (its parameters, its flags)
SECTIONS: dict[str, tuple[set[str], set[str]]] = {
    "Tasks": ({"Name", "Description", "GroupDescription", "Components", "Flags", "Check",
               "Languages", "MinVersion", "OnlyBelowVersion"},
              {"checkablealone", "checkedonce", "dontinheritcheck", "exclusive", "restart",
               "unchecked"}),
    "Files": ({"Source", "DestDir", "DestName", "Excludes", "ExternalSize", "Attribs",
               "Permissions", "FontInstall", "StrongAssemblyName", "Components", "Tasks",
               "Flags"} | _COMMON,
              set("""32bit 64bit allowunsafefiles comparetimestamp confirmoverwrite
               createallsubdirs deleteafterinstall dontcopy dontverifychecksum external
               fontisnttruetype gacinstall ignoreversion isreadme nocompression noencryption
               noregerror onlyifdestfileexists onlyifdoesntexist overwritereadonly promptifolder
               recursesubdirs regserver regtypelib replacesameversion restartreplace
               setntfscompression sharedfile sign signcheck signonce skipifsourcedoesntexist
               solidbreak sortfilesbyextension sortfilesbyname touch uninsnosharedfileprompt
               uninsremovereadonly uninsrestartdelete uninsneveruninstall
               unsetntfscompression""".split())),
    "Icons": ({"Name", "Filename", "Parameters", "WorkingDir", "HotKey", "Comment",
               "IconFilename", "IconIndex", "AppUserModelID", "AppUserModelToastActivatorCLSID",
               "Components", "Tasks", "Flags"} | _COMMON,
              set("""closeonexit createonlyiffileexists dontcloseonexit
               excludefromshowinnewinstall foldershortcut preventpinning runmaximized
               runminimized uninsneveruninstall useapppaths""".split())),
    "Registry": ({"Root", "Subkey", "ValueType", "ValueName", "ValueData", "Permissions",
                  "Components", "Tasks", "Flags"} | _COMMON,
                 set("""createvalueifdoesntexist deletekey deletevalue dontcreatekey noerror
                  preservestringtype uninsclearvalue uninsdeletekey uninsdeletekeyifempty
                  uninsdeletevalue""".split())),
    "Run": ({"Filename", "Description", "Parameters", "WorkingDir", "StatusMsg", "RunOnceId",
             "Verb", "Components", "Tasks", "Flags"} | _COMMON,
            set("""32bit 64bit dontlogparameters hidewizard logoutput nowait postinstall
             runascurrentuser runasoriginaluser runhidden runmaximized runminimized shellexec
             skipifdoesntexist skipifnotsilent skipifsilent unchecked waituntilidle
             waituntilterminated""".split())),
    "UninstallDelete": ({"Type", "Name", "Components", "Tasks"} | _COMMON - {"BeforeInstall", "AfterInstall"},
                        set()),
    "UninstallRun": ({"Filename", "Parameters", "WorkingDir", "RunOnceId", "Verb", "Components",
                      "Tasks", "Flags"} | _COMMON - {"BeforeInstall", "AfterInstall"},
                     set("""32bit 64bit hidewizard logoutput nowait runascurrentuser runhidden
                      runmaximized runminimized shellexec skipifdoesntexist waituntilidle
                      waituntilterminated""".split())),
    "Dirs": ({"Name", "Attribs", "Permissions", "Components", "Tasks", "Flags"} | _COMMON,
             {"deleteafterinstall", "setntfscompression", "uninsalwaysuninstall",
              "uninsneveruninstall", "unsetntfscompression"}),
}
REQUIRED_PARAMS = {"Tasks": {"Name", "Description"}, "Files": {"Source", "DestDir"},
                   "Icons": {"Name", "Filename"}, "Registry": {"Root", "Subkey"},
                   "Run": {"Filename"}, "UninstallDelete": {"Type", "Name"},
                   "UninstallRun": {"Filename", "RunOnceId"}, "Dirs": {"Name"}}
ROOTS = {f"{r}{s}" for r in ("HKCR", "HKCU", "HKLM", "HKU", "HKCC", "HKA") for s in ("", "32", "64")}
VALUE_TYPES = {"none", "string", "expandsz", "multisz", "dword", "qword", "binary"}
DELETE_TYPES = {"files", "filesandordirs", "dirifempty"}
#: directory and other constants of Inno Setup 6 (those this project might use; extend as needed)
CONSTANTS = set("""app win sys sysnative syswow64 src sd commonpf commonpf32 commonpf64 commoncf
 commoncf32 commoncf64 tmp fonts dao dotnet11 dotnet20 dotnet40 group localappdata userappdata
 commonappdata usercf userpf userdesktop commondesktop userdocs commondocs userfavorites
 userprograms commonprograms userstartmenu commonstartmenu userstartup commonstartup
 usertemplates commontemplates autoappdata autocf autocf32 autocf64 autodesktop autodocs
 autopf autopf32 autopf64 autoprograms autostartmenu autostartup autotemplates cmd computername
 groupname hwnd wizardhwnd language olddata uninstallexe sysuserinfoname sysuserinfoorg
 userinfoname userinfoorg userinfoserial username log""".split())
SECTION_NAMES = set(SECTIONS) | {"Setup", "Code", "Languages", "Messages", "CustomMessages",
                                 "Components", "Types", "INI", "InstallDelete", "LangOptions"}


@dataclass
class Script:
    path: Path
    defines: dict[str, str] = field(default_factory=dict)
    required_defines: set[str] = field(default_factory=set)  # #ifndef X ... #error: passed by /D
    setup: dict[str, str] = field(default_factory=dict)
    entries: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    code: str = ""
    problems: list[str] = field(default_factory=list)


def split_entry(line: str) -> list[tuple[str, str]] | None:
    """``Name: value; Name: "a ""quoted"" x"`` -> pairs; None if the line is malformed."""
    out, i, n = [], 0, len(line)
    while i < n:
        m = re.compile(r"\s*([A-Za-z][A-Za-z0-9]*)\s*:\s*").match(line, i)
        if not m:
            return None
        name, i = m.group(1), m.end()
        if i < n and line[i] == '"':
            j, buf = i + 1, []
            while True:
                if j >= n:
                    return None  # unterminated quote
                if line[j] == '"':
                    if j + 1 < n and line[j + 1] == '"':
                        buf.append('"')
                        j += 2
                        continue
                    break
                buf.append(line[j])
                j += 1
            value, i = "".join(buf), j + 1
        else:
            j = line.find(";", i)
            j = n if j < 0 else j
            value, i = line[i:j].strip(), j
        out.append((name, value))
        rest = line[i:].lstrip()
        if not rest:
            break
        if not rest.startswith(";"):
            return None
        i = n - len(rest) + 1
    return out


def constants_in(value: str) -> list[str]:
    """The ``{...}`` constants of a value (``{{`` is a literal brace); raises on unbalanced."""
    out, i = [], 0
    while i < len(value):
        c = value[i]
        if c == "{":
            if value.startswith("{{", i):
                i += 2
                continue
            depth, j = 1, i + 1
            while j < len(value) and depth:
                depth += {"{": 1, "}": -1}.get(value[j], 0)
                j += 1
            if depth:
                raise ValueError(f"unbalanced brace in {value!r}")
            out.append(value[i + 1:j - 1])
            i = j
        else:
            i += 1
    return out


def parse(path: Path) -> Script:
    s = Script(path)
    section = None
    stack: list[str] = []
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    for no, raw in enumerate(lines, 1):
        line = raw.strip()
        where = f"{path.name}:{no}"
        if section == "Code" and not line.startswith("["):
            s.code += raw + "\n"
            continue
        if not line or line.startswith(";"):
            continue
        if line.startswith("#"):
            m = re.match(r"#\s*(\w+)\s*(.*)", line)
            if not m:
                s.problems.append(f"{where}: malformed preprocessor line")
                continue
            word, rest = m.group(1), m.group(2)
            if word in ("if", "ifdef", "ifndef", "ifexist", "ifnexist"):
                stack.append(word)
                if word == "ifndef":
                    pending_ifndef = rest.strip()
                    s.required_defines.add(pending_ifndef)
            elif word in ("elif", "else"):
                if not stack:
                    s.problems.append(f"{where}: #{word} without #if")
            elif word == "endif":
                if not stack:
                    s.problems.append(f"{where}: #endif without #if")
                else:
                    stack.pop()
            elif word == "define":
                d = re.match(r"(\w+)\s+(.*)", rest)
                if not d:
                    s.problems.append(f"{where}: malformed #define")
                else:
                    s.defines[d.group(1)] = d.group(2).strip().strip('"')
            elif word not in ("error", "include", "pragma", "undef", "emit", "expr", "sub",
                              "endsub", "for", "insert", "append", "file"):
                s.problems.append(f"{where}: unknown preprocessor directive #{word}")
            continue
        m = re.fullmatch(r"\[(\w+)\]", line)
        if m:
            section = m.group(1)
            if section not in SECTION_NAMES:
                s.problems.append(f"{where}: unknown section [{section}]")
            continue
        if section is None:
            s.problems.append(f"{where}: text before the first section")
        elif section == "Setup":
            kv = re.fullmatch(r"(\w+)\s*=\s*(.*)", line)
            if not kv:
                s.problems.append(f"{where}: [Setup] lines are Directive=Value")
            elif kv.group(1) not in SETUP_DIRECTIVES:
                s.problems.append(f"{where}: unknown [Setup] directive {kv.group(1)}")
            else:
                if kv.group(1) in s.setup:
                    s.problems.append(f"{where}: {kv.group(1)} set twice")
                s.setup[kv.group(1)] = kv.group(2)
        elif section in SECTIONS:
            pairs = split_entry(line)
            if pairs is None:
                s.problems.append(f"{where}: malformed entry (Param: value; ... with \"\" quotes)")
                continue
            names = [n for n, _ in pairs]
            if len(set(names)) != len(names):
                s.problems.append(f"{where}: a parameter given twice")
            entry = dict(pairs)
            entry["_where"] = where
            s.entries.setdefault(section, []).append(entry)
    if stack:
        s.problems.append(f"{path.name}: #{stack[-1]} without #endif")
    return s


def lint(path: Path, defines: dict[str, str] | None = None) -> list[str]:
    """Every problem found, one sentence each (empty: the script passed)."""
    s = parse(path)
    problems = list(s.problems)
    known = set(s.defines) | s.required_defines | set(defines or {})
    tasks = {e.get("Name") for e in s.entries.get("Tasks", [])}
    code_functions = {m.group(1).lower() for m in
                      re.finditer(r"^\s*(?:function|procedure)\s+(\w+)", s.code, re.M | re.I)}

    def check_value(where: str, value: str) -> None:
        try:
            consts = constants_in(value)
        except ValueError as err:
            problems.append(f"{where}: {err}")
            return
        for c in consts:
            if c.startswith("#"):
                if c[1:] not in known:
                    problems.append(f"{where}: {{{c}}} is not #defined")
            elif c.startswith("cm:") or c.startswith("code:") or c.startswith("reg:") \
                    or c.startswith("param:") or c.startswith("ini:") or c.startswith("%"):
                if c.startswith("code:") and c[5:].split("|")[0].lower() not in code_functions:
                    problems.append(f"{where}: {{{c}}} calls a function not in [Code]")
            elif c not in CONSTANTS:
                problems.append(f"{where}: unknown constant {{{c}}}")

    for key, value in s.setup.items():
        check_value(f"[Setup] {key}", value)
    for section, entries in s.entries.items():
        params, flags = SECTIONS[section]
        for e in entries:
            where = e["_where"]
            for name, value in e.items():
                if name == "_where":
                    continue
                if name not in params:
                    problems.append(f"{where}: [{section}] has no parameter {name}")
                check_value(where, value)
            for missing in sorted(REQUIRED_PARAMS[section] - set(e)):
                problems.append(f"{where}: [{section}] entry without {missing}")
            for flag in e.get("Flags", "").split():
                if flag.lower() not in flags:
                    problems.append(f"{where}: [{section}] has no flag {flag}")
            for task in re.split(r"[\s,]+", e.get("Tasks", "").replace("not ", " ")):
                task = task.strip("!() ")
                if task and task not in ("and", "or") and task not in tasks:
                    problems.append(f"{where}: task {task} is not declared in [Tasks]")
            check = e.get("Check")
            if check:
                fn = re.match(r"\s*(?:not\s+)?(\w+)", check, re.I).group(1)
                if fn.lower() not in code_functions:
                    problems.append(f"{where}: Check: {fn} is not a function in [Code]")
            if section == "Registry":
                if e.get("Root") not in ROOTS:
                    problems.append(f"{where}: unknown registry root {e.get('Root')}")
                if e.get("ValueType", "none") not in VALUE_TYPES:
                    problems.append(f"{where}: unknown ValueType {e.get('ValueType')}")
            if section == "UninstallDelete" and e.get("Type") not in DELETE_TYPES:
                problems.append(f"{where}: unknown Type {e.get('Type')}")
            if section == "Files":
                src = e.get("Source", "")
                if "{#Root}\\dist\\" not in src:  # build outputs are made on Windows first
                    resolved = src.replace("{#Root}", s.defines.get("Root", "."))
                    if not (path.parent / resolved.replace("\\", "/")).exists():
                        problems.append(f"{where}: source file {src} does not exist")
    if s.code:
        code = re.sub(r"\{[^}]*\}|\(\*.*?\*\)|//[^\n]*|'[^'\n]*'", " ", s.code, flags=re.S)
        opens = len(re.findall(r"\b(begin|case|try)\b", code, re.I))
        ends = len(re.findall(r"\bend\b", code, re.I))
        if opens != ends:
            problems.append(f"[Code]: {opens} begin/case/try but {ends} end")
        for m in re.finditer(r"\b(?:function|procedure)\s+\w+[^;]*;", code, re.I):
            if m.group(0).count("(") != m.group(0).count(")"):
                problems.append(f"[Code]: unbalanced parentheses in {m.group(0)!r}")
    for key in ("SetupIconFile",):
        if key in s.setup:
            rel = s.setup[key].replace("{#Root}", s.defines.get("Root", ".")).replace("\\", "/")
            if not (path.parent / rel).exists():
                problems.append(f"[Setup] {key}: {s.setup[key]} does not exist")
    return problems


def main(argv: list[str]) -> int:
    path = Path(argv[0] if argv else Path(__file__).resolve().parent / "windows" / "workbench.iss")
    problems = lint(path)
    for p in problems:
        print(p)
    print(f"iss_lint: {path}: {'ok' if not problems else f'{len(problems)} problem(s)'}",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
