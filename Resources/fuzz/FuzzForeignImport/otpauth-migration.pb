
.

Hello!Þ­¾ïalice@example.comExample (0
0
12345678901234567890
GitHub:bobGitHub (0
!

abcdefghijcounterBank (0