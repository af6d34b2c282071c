
C

session_index


cur_page	

page2

label	

page3