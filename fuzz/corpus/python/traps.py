# Gate-like text where it is no code: none of it may be reported. The file still holds real gates
# after each trap, to show the tokenizer got back in step. Written for archpatch's tests.
"""Module docstring: get_nvcc_flags_list(supported_major_versions=[9, 10]) needs major >= 10.

Also "sm_90a" and -gencode=arch=compute_90a,code=sm_90a in a docstring.
"""
import torch

# supported_major_versions=[9, 10]  (a comment)
# if major >= 10: "sm_100a"


def documented():
    '''supported_major_versions=[9, 10]
    major, minor = torch.cuda.get_device_capability()
    if major >= 10: pass
    '''
    return None


def strings():
    a = "supported_major_versions=[9, 10]"
    b = 'major >= 10 and minor == 0'
    c = r"has_device_capability(90) \" still inside"
    d = b"is_device_capability(100)"
    e = Rb'''admissible_archs = ["sm_90a"]'''
    f = f"{'supported_major_versions=[9, 10]'} {a!r:>{10}} {{major >= 10}}"
    g = f"{f"{"nested same quotes: major >= 10"}"}"  # Python 3.12 nested f-strings
    h = F"""triple f {b + "has_device_capability(90)"}
    supported_major_versions=[9, 10]
    """
    i = "escaped quote \" supported_major_versions=[9, 10] \\"
    return a, b, c, d, e, f, g, h, i


def after_traps():
    major, minor = torch.cuda.get_device_capability()
    if major >= 10:  # expect: python-gate scope=after_traps sm_100=true sm_90=false
        return "sm100"  # a string, but not an arch name with sm_ prefix
    return None


def continuations():
    major, minor = torch.cuda.get_device_capability()
    ok = True and \
        major >= 12  # expect: python-gate scope=continuations sm_120=true sm_100=false
    if (major  # expect: python-gate scope=continuations sm_90=true sm_100=false
            == 9):
        pass
    flags = get_nvcc_flags_list(supported_major_versions=[  # expect: python-gate scope=continuations sm_90=true sm_120=false
        9,
        10,  # the trailing comma stays
    ])
    return flags


def tabs():
	major, minor = torch.cuda.get_device_capability()
	if major == 9:  # expect: python-gate scope=tabs sm_90=true sm_100=false
		return 1
	return 0


def ünïcode_näme():
    größe = torch.cuda.get_device_capability()
    return größe >= (9, 0), 0x_ff, 1_000.5e-3j, .5  # expect: python-gate operand=capability scope=ünïcode_näme sm_90=true sm_89=false


def numbers(cap):
    return cap >= (10, 0)  # expect: python-gate operand=capability scope=numbers sm_100=true sm_90=false
