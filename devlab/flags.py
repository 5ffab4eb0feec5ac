"""``tf.flags`` / ``tf.app.flags``: command-line flags as TF1 scripts define them.

``DEFINE_string("job_name", "", "ps or worker")`` declares a flag; ``FLAGS.job_name`` reads it,
parsing ``sys.argv`` on first use. Two differences on purpose, for notebooks: flags devlab does
not know are left alone instead of being an error (Jupyter starts kernels with ``-f <file>``,
which made TF1 scripts fail in notebooks), and defining a flag again (re-running a cell)
replaces it instead of raising DuplicateFlagError.
"""
import sys

from .unimplemented import argument, module_getattr

__getattr__ = module_getattr("tf.flags", __name__)


class Error(Exception):
    """A flag's value could not be parsed."""


class IllegalFlagValueError(Error):
    pass


class _Flag:
    def __init__(self, name, default, help, parser, boolean=False):
        self.name, self.default, self.help, self.parser, self.boolean = name, default, help, parser, boolean
        self.value = default
        self.present = False


class FlagValues:
    """The defined flags and their values (``FLAGS``); parses argv on first attribute access."""

    def __init__(self):
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_parsed", False)
        object.__setattr__(self, "_required", set())  # mark_flag_as_required's names

    def _define(self, flag):
        self._flags[flag.name] = flag

    def __call__(self, argv, known_only=True):
        """Parses ``argv`` (program name first); returns the arguments that are not flags."""
        rest, args = [argv[0]] if argv else [], list(argv[1:])
        i = 0
        while i < len(args):
            arg = args[i]
            i += 1
            if arg == "--":
                rest.extend(args[i:])
                break
            if not arg.startswith("-") or arg == "-":
                rest.append(arg)
                continue
            name, eq, value = arg.lstrip("-").partition("=")
            flag = self._flags.get(name)
            if flag is None and name.startswith("no") and not eq:
                flag = self._flags.get(name[2:])
                if flag is not None and flag.boolean:
                    flag.value, flag.present = False, True
                    continue
                flag = None
            if flag is None:
                rest.append(arg)  # not one of ours: left for the program (and Jupyter's -f)
                if not eq and i < len(args) and not args[i].startswith("-"):
                    rest.append(args[i])
                    i += 1
                continue
            if flag.boolean and not eq:
                flag.value, flag.present = True, True
                continue
            if not eq:
                if i >= len(args):
                    raise Error(f"Flag --{name} must have a value other than None.")
                value = args[i]
                i += 1
            flag.value, flag.present = self._parse(flag, value), True
        for name in sorted(self._required):
            flag = self._flags.get(name)
            if flag is not None and flag.value is None:
                raise IllegalFlagValueError(f"flag --{name}=None: Flag --{name} must have a value other than None.")
        object.__setattr__(self, "_parsed", True)
        return rest

    @staticmethod
    def _parse(flag, text):
        try:
            return flag.parser(text)
        except (TypeError, ValueError) as e:
            raise IllegalFlagValueError(f"flag --{flag.name}={text}: {e}") from None

    def is_parsed(self):
        return self._parsed

    def mark_as_parsed(self):
        object.__setattr__(self, "_parsed", True)

    def unparse_flags(self):
        for flag in self._flags.values():
            flag.value, flag.present = flag.default, False
        object.__setattr__(self, "_parsed", False)

    def __getattr__(self, name):
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(name)
        if not self._parsed:
            self(sys.argv)
        return flags[name].value

    def __setattr__(self, name, value):
        if name not in self._flags:
            raise AttributeError(name)
        self._flags[name].value = value

    def __contains__(self, name):
        return name in self._flags

    def __iter__(self):
        return iter(self._flags)

    def flag_values_dict(self):
        if not self._parsed:
            self(sys.argv)
        return {name: flag.value for name, flag in self._flags.items()}

    def get_flag_value(self, name, default):
        return self._flags[name].value if name in self._flags else default


FLAGS = FlagValues()


def _bool(text):
    lowered = str(text).lower()
    if lowered in ("true", "t", "1", "yes", "y"):
        return True
    if lowered in ("false", "f", "0", "no", "n"):
        return False
    raise ValueError("Non-boolean argument to boolean flag")


def _define(name, default, help, parser, boolean=False, flag_values=FLAGS):
    value = parser(default) if isinstance(default, str) and parser is not str else default
    flag_values._define(_Flag(name, value, help, parser, boolean))


def _no_more(api, kwargs):
    """absl's other keyword arguments (``module_name``, ``required``...) are not implemented."""
    for key in kwargs:
        raise argument(key, api)


def _bounded(parser, lower, upper, article, noun):
    """``parser`` that also checks absl's ``lower_bound``/``upper_bound``, with absl's words."""
    if lower is None and upper is None:
        return parser
    if lower == 0 and upper is None:
        words = f"a non-negative {noun}"
    elif lower == 1 and upper is None:
        words = f"a positive {noun}"
    elif upper == 0 and lower is None:
        words = f"a non-positive {noun}"
    elif upper == -1 and lower is None:
        words = f"a negative {noun}"
    elif upper is None:
        words = f"{article} {noun} >= {lower}"
    elif lower is None:
        words = f"{article} {noun} <= {upper}"
    else:
        words = f"{article} {noun} in the range [{lower}, {upper}]"

    def parse(text):
        value = parser(text)
        if (lower is not None and value < lower) or (upper is not None and value > upper):
            raise ValueError(f"{value} is not {words}")
        return value
    return parse


def DEFINE_string(name, default, help, flag_values=FLAGS, **kwargs):  # noqa: N802 - TF's names
    _no_more("DEFINE_string", kwargs)
    _define(name, default, help, str, flag_values=flag_values)


def DEFINE_integer(name, default, help, lower_bound=None, upper_bound=None, flag_values=FLAGS, **kwargs):  # noqa: N802
    _no_more("DEFINE_integer", kwargs)
    _define_bounded(name, default, help, _bounded(int, lower_bound, upper_bound, "an", "integer"), flag_values)


def DEFINE_float(name, default, help, lower_bound=None, upper_bound=None, flag_values=FLAGS, **kwargs):  # noqa: N802
    _no_more("DEFINE_float", kwargs)
    _define_bounded(name, default, help, _bounded(float, lower_bound, upper_bound, "a", "number"), flag_values)


def _define_bounded(name, default, help, parser, flag_values):
    """As absl, the default is checked against the bounds when the flag is defined."""
    if default is not None:
        FlagValues._parse(_Flag(name, default, help, parser), default)
    _define(name, default, help, parser, flag_values=flag_values)


def DEFINE_boolean(name, default, help, flag_values=FLAGS, **kwargs):  # noqa: N802
    _no_more("DEFINE_boolean", kwargs)
    _define(name, default, help, _bool, boolean=True, flag_values=flag_values)


DEFINE_bool = DEFINE_boolean


def DEFINE_list(name, default, help, flag_values=FLAGS, **kwargs):  # noqa: N802
    _no_more("DEFINE_list", kwargs)

    def parse(text):
        return [part.strip() for part in text.split(",") if part.strip()] if isinstance(text, str) else list(text)
    _define(name, default, help, parse, flag_values=flag_values)


def DEFINE_enum(name, default, enum_values, help, flag_values=FLAGS, **kwargs):  # noqa: N802
    _no_more("DEFINE_enum", kwargs)

    def parse(text):
        if text not in enum_values:
            raise ValueError(f"value should be one of <{'|'.join(enum_values)}>")
        return text
    _define(name, default, help, parse, flag_values=flag_values)


def mark_flag_as_required(flag_name, flag_values=FLAGS):
    """absl's check: parsing fails if ``flag_name`` is still None afterwards."""
    flag_values._required.add(flag_name)
